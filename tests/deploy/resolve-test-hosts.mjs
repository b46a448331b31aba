// The deploy tests' DNS for the processes they start (NODE_OPTIONS=--import=<this file>),
// as Chromium's --host-resolver-rules is the browser's: keyway.test and its sub-domains are
// this machine. Every other name resolves as usual.
import dns from "node:dns";

const lookup = dns.lookup;
const ours = (name) => name === "keyway.test" || String(name).endsWith(".keyway.test");

dns.lookup = function (hostname, options, callback) {
  return lookup.call(this, ours(hostname) ? "127.0.0.1" : hostname, options, callback);
};
dns.promises.lookup = (
  (original) => (hostname, options) =>
    original(ours(hostname) ? "127.0.0.1" : hostname, options)
)(dns.promises.lookup);
