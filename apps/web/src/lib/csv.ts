/** RFC 4180 CSV: fields with a comma, quote or line break are quoted, quotes doubled. */
export function toCsv(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cell = (value: unknown): string => {
    const text = value === null || value === undefined ? "" : String(value);
    // A leading =, + or @ would be run as a formula by spreadsheet programs.
    const safe = /^[=+@\t]/.test(text) ? `'${text}` : text;
    return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
  };
  return [header, ...rows].map((row) => row.map(cell).join(",")).join("\r\n");
}

/** Saves `text` as a file (UTF-8 with BOM so spreadsheet programs read Chinese correctly). */
export function downloadText(filename: string, text: string, type = "text/csv"): void {
  downloadBlob(filename, new Blob(["\uFEFF", text], { type: `${type};charset=utf-8` }));
}

/** Saves a file the server made (a CSV export) under `filename`. */
export function downloadBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 1000);
}
