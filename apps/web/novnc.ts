import type { Plugin } from "vite";

/** The one top-level await of @novnc/novnc 1.6.0's CommonJS build (lib/util/browser.js). */
const AWAITED =
  /exports\.supportsWebCodecsH264Decode = supportsWebCodecsH264Decode = await _checkWebCodecsH264DecodeSupport\(\);/;

const BROWSER_JS = /[\\/]@novnc[\\/]novnc[\\/]lib[\\/]util[\\/]browser\.js$/;

/**
 * @novnc/novnc 1.6.0 is published as Babel's CommonJS with a top-level `await` left in
 * lib/util/browser.js (novnc/noVNC#1943): no bundler accepts it in a CommonJS module (Vite 8's
 * rolldown: "TopLevelAwait is not supported"). The awaited value only says whether the
 * browser can decode H.264, read by rfb.js when it lists its encodings at connect time: it is
 * started here without waiting and filled in when known (false until then, so a viewer that
 * connects in the first milliseconds just does not offer H.264). Fails the build when the
 * line is gone, so that a noVNC upgrade does not silently keep this.
 */
export function novncTopLevelAwait(): Plugin {
  return {
    name: "keyway-novnc-top-level-await",
    enforce: "pre",
    transform(code, id) {
      if (!BROWSER_JS.test(id.split("?")[0] ?? id)) return null;
      if (!AWAITED.test(code)) {
        if (/^\s*exports\.\w+ = \w+ = await /m.test(code)) {
          this.error("@novnc/novnc lib/util/browser.js: unexpected top-level await");
        }
        // A noVNC that no longer has it (fixed upstream): nothing to do.
        return null;
      }
      return {
        code: code.replace(
          AWAITED,
          "exports.supportsWebCodecsH264Decode = supportsWebCodecsH264Decode = false; " +
            "_checkWebCodecsH264DecodeSupport().then(function (v) { " +
            "exports.supportsWebCodecsH264Decode = supportsWebCodecsH264Decode = v; }, " +
            "function () {});",
        ),
        map: null,
      };
    },
  };
}
