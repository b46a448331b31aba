import { useEffect, useState } from "react";

/**
 * The left edge of a drawer open at the window's right (null when none), followed while
 * `active`: the pop-up moves beside it so that its buttons stay free.
 */
export function useRightDrawerEdge(active: boolean): number | null {
  const [edge, setEdge] = useState<number | null>(null);
  useEffect(() => {
    if (!active) {
      setEdge(null);
      return;
    }
    let frame = 0;
    const measure = () => {
      frame = 0;
      let left: number | null = null;
      for (const el of document.querySelectorAll(".ant-drawer-open .ant-drawer-content-wrapper")) {
        const rect = el.getBoundingClientRect();
        if (rect.width > 0 && rect.right >= window.innerWidth - 1) {
          left = left === null ? rect.left : Math.min(left, rect.left);
        }
      }
      // Whole pixels: the drawer's slide-in would otherwise re-render the pop-up each frame.
      setEdge(left === null ? null : Math.round(left / 8) * 8);
    };
    const schedule = () => {
      if (!frame) frame = window.requestAnimationFrame(measure);
    };
    measure();
    const observer = new MutationObserver(schedule);
    observer.observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["class", "style"],
    });
    window.addEventListener("resize", schedule);
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", schedule);
      if (frame) window.cancelAnimationFrame(frame);
    };
  }, [active]);
  return edge;
}
