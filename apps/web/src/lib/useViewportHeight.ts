import { useEffect, useState } from "react";

/**
 * A fixed pixel height for a scrolling area: the window height minus `offset`, at least `min`.
 * (antd's virtual Table needs a numeric `scroll.y`.)
 */
export function useViewportHeight(offset: number, min = 320): number {
  const compute = () => Math.max(min, window.innerHeight - offset);
  const [height, setHeight] = useState(compute);
  useEffect(() => {
    const onResize = () => setHeight(Math.max(min, window.innerHeight - offset));
    onResize();
    window.addEventListener("resize", onResize);
    return () => window.removeEventListener("resize", onResize);
  }, [offset, min]);
  return height;
}
