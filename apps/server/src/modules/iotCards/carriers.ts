/**
 * The carriers cards are read from: the shared adapter interface (carriers/carrier.ts), the
 * demo's simulator and China Mobile OneLink, one file each.
 */
export { type CarrierAdapter, type CarrierCardInfo, CarrierError } from "./carriers/carrier.ts";
export { createOneLinkCarrier } from "./carriers/oneLink.ts";
export { createSimulatorCarrier } from "./carriers/simulator.ts";
