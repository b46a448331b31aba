// In the agent's bundle in place of the `socks` package (build.mjs, "leanDependencies"):
// mqtt.js reaches it only for its `socksProxy` option, which the agent never sets.
exports.SocksClient = {
  createConnection() {
    throw new Error("SOCKS proxies are not built into keyway-agent");
  },
};
