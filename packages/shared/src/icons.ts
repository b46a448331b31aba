import type { Bilingual } from "./lang.ts";

/**
 * The machine type icon map (SPEC §3): a name pattern over the device model (or its name)
 * selects an image; anything else gets the default. The server serves each image at
 * `/icons/<id>.svg`.
 */
export interface MachineTypeIconDef {
  id: string;
  pattern: RegExp;
  name: Bilingual;
  /** SVG body drawn on a 48×48 canvas. */
  glyph: string;
}

const screen =
  '<rect x="8" y="10" width="32" height="22" rx="3" fill="none" stroke="#fff" stroke-width="3"/><path d="M18 38h12M24 32v6" stroke="#fff" stroke-width="3"/>';
const plc =
  '<rect x="10" y="8" width="28" height="32" rx="2" fill="none" stroke="#fff" stroke-width="3"/><path d="M16 16h6M16 22h6M16 28h6M28 16v16" stroke="#fff" stroke-width="3"/>';
const pc =
  '<rect x="6" y="10" width="36" height="24" rx="2" fill="none" stroke="#fff" stroke-width="3"/><path d="M12 28l7-8 6 5 9-11" fill="none" stroke="#fff" stroke-width="3"/>';
const camera =
  '<rect x="6" y="16" width="26" height="18" rx="3" fill="none" stroke="#fff" stroke-width="3"/><path d="M32 22l10-5v16l-10-5z" fill="#fff"/>';
const gateway =
  '<rect x="8" y="26" width="32" height="12" rx="3" fill="none" stroke="#fff" stroke-width="3"/><path d="M16 26v-8M32 26v-8M12 14a12 12 0 0 1 24 0" fill="none" stroke="#fff" stroke-width="3"/>';
const device =
  '<rect x="12" y="12" width="24" height="24" rx="4" fill="none" stroke="#fff" stroke-width="3"/><circle cx="24" cy="24" r="4" fill="#fff"/>';

export const MACHINE_TYPE_ICONS: readonly MachineTypeIconDef[] = [
  {
    id: "hmi",
    pattern: /^(HMI|MT|TK|CMT|TP)/i,
    name: { zh: "触摸屏", en: "HMI panel" },
    glyph: screen,
  },
  { id: "plc", pattern: /^(PLC|FX|S7|CP|Q0|KV)/i, name: { zh: "PLC", en: "PLC" }, glyph: plc },
  {
    id: "scada",
    pattern: /^(SCADA|IPC|PC)/i,
    name: { zh: "组态工控机", en: "SCADA PC" },
    glyph: pc,
  },
  { id: "camera", pattern: /^(CAM|EZ|DS-)/i, name: { zh: "摄像头", en: "Camera" }, glyph: camera },
  {
    id: "gateway",
    pattern: /^(GW|BOX|4G|VPN)/i,
    name: { zh: "网关", en: "Gateway" },
    glyph: gateway,
  },
];

export const DEFAULT_MACHINE_ICON: MachineTypeIconDef = {
  id: "device",
  pattern: /$^/,
  name: { zh: "设备", en: "Device" },
  glyph: device,
};

const COLORS: Record<string, string> = {
  hmi: "#1677ff",
  plc: "#13a8a8",
  scada: "#722ed1",
  camera: "#eb2f96",
  gateway: "#fa8c16",
  device: "#8c8c8c",
};

export function machineIconFor(model: string, name = ""): MachineTypeIconDef {
  return (
    MACHINE_TYPE_ICONS.find((icon) => icon.pattern.test(model) || icon.pattern.test(name)) ??
    DEFAULT_MACHINE_ICON
  );
}

export function machineIconUrl(icon: MachineTypeIconDef): string {
  return `/icons/${icon.id}.svg`;
}

export function machineIconSvg(icon: MachineTypeIconDef): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48"><rect width="48" height="48" rx="10" fill="${COLORS[icon.id] ?? COLORS.device}"/>${icon.glyph}</svg>`;
}
