import { consentSecondsLeft } from "./ConsentCountdown.tsx";

/**
 * The tab Connect opens inside the click (so that popup blockers let it through), written
 * while the visit URL is asked: "connecting…", then the on-site approval wait with its
 * seconds left. Nothing of Keyway's runs in it: plain text on a blank page.
 */
export function waitingTab(tab: Window) {
  let timer = 0;
  const write = (title: string, text: string) => {
    try {
      const doc = tab.document;
      doc.title = title;
      let p = doc.querySelector("p");
      if (!p) {
        p = doc.createElement("p");
        p.setAttribute(
          "style",
          "font-family:system-ui,sans-serif;color:#555;margin:20vh auto;max-width:36em;text-align:center;line-height:1.6",
        );
        doc.body.replaceChildren(p);
      }
      p.textContent = text;
    } catch {
      // Not ours to write (a browser that opened it elsewhere): the blank tab will do.
    }
  };
  return {
    show: write,
    /** Counts the seconds left of the on-site approval down, once a second. */
    countdown(since: number, title: string, text: (seconds: number) => string) {
      window.clearInterval(timer);
      const tick = () => write(title, text(consentSecondsLeft(since)));
      tick();
      timer = window.setInterval(tick, 1000);
    },
    stop() {
      window.clearInterval(timer);
    },
  };
}
