// In the agent's bundle in place of the `worker-timers` package (build.mjs, "leanDependencies"):
// mqtt.js uses Web Worker timers only in a browser; on Node.js it takes setInterval.
const none = () => {
  throw new Error("Web Worker timers are for browsers, not keyway-agent");
};
module.exports = { setInterval: none, clearInterval: none, setTimeout: none, clearTimeout: none };
