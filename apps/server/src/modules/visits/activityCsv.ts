import type { Lang } from "@keyway/shared";
import type { VisitActivity } from "./schema.ts";

/**
 * The CSV export's columns, in the caller's language (issue 20). New columns go last, so
 * that a spreadsheet or script reading the columns by position keeps working.
 */
const HEADER: Record<Lang, string[]> = {
  en: [
    "Visit ID",
    "Visitor",
    "Account",
    "Terminal",
    "Kind",
    "Time",
    "End time",
    "Method",
    "Path",
    "Status",
    "Bytes in (from device)",
    "Bytes out (to device)",
    "View only / control",
    "Input events",
    "Dropped events",
    "Requests",
  ],
  cn: [
    "访问编号",
    "访问者",
    "账号",
    "终端",
    "类型",
    "时间",
    "结束时间",
    "方法",
    "路径",
    "状态码",
    "下行字节（来自设备）",
    "上行字节（发往设备）",
    "只读 / 控制",
    "输入事件",
    "丢弃的输入事件",
    "请求次数",
  ],
};

const WORDS: Record<Lang, { http: string; screen: string; viewOnly: string; control: string }> = {
  en: { http: "HTTP", screen: "Screen", viewOnly: "view only", control: "control" },
  cn: { http: "HTTP", screen: "屏幕", viewOnly: "只读", control: "控制" },
};

export function csvHeader(lang: Lang): string[] {
  return HEADER[lang];
}

/**
 * One cell, quoted when it must be (RFC 4180), and never a formula: a cell a spreadsheet
 * would evaluate (= + - @, or a tab or carriage return first) gets a leading single quote.
 * Paths come from visitors, so this matters (CSV injection).
 */
export function csvCell(value: string | number): string {
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: Array<string | number>): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

/** A row of the export: times in UTC ISO 8601 (one meaning wherever the file is opened). */
export function csvRow(
  r: VisitActivity & { visitor: string; account: string; terminal: string },
  lang: Lang,
): Array<string | number> {
  const w = WORDS[lang];
  return [
    r.visitId,
    r.visitor,
    r.account,
    r.terminal,
    r.kind === "screen" ? w.screen : w.http,
    r.at.toISOString(),
    r.endedAt?.toISOString() ?? "",
    r.method,
    r.path,
    r.status,
    r.bytesIn,
    r.bytesOut,
    r.viewOnly ? w.viewOnly : w.control,
    r.inputEvents,
    r.droppedEvents,
    r.requests,
  ];
}
