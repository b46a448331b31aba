import { type AppDownloadInfo, appReleaseOf, type Brand, type Lang } from "@keyway/shared";
import QRCode from "qrcode";

/** QR images of the download links: PNG, black on white, readable from a phone screen. */
export const QR_OPTIONS = {
  type: "image/png",
  margin: 1,
  width: 240,
  errorCorrectionLevel: "M",
  color: { dark: "#000000", light: "#ffffff" },
} satisfies QRCode.QRCodeToDataURLOptions;

/** SPEC §3 "Version info" / "Brand configuration" for one brand, with QR images. */
export function createAppDownloads() {
  // QR images depend only on the links: drawn once per brand and language.
  const downloads = new Map<string, Promise<AppDownloadInfo>>();

  return function appDownload(brand: Brand, lang: Lang): Promise<AppDownloadInfo> {
    const key = `${brand.id}:${lang}`;
    let info = downloads.get(key);
    if (!info) {
      info = buildDownload(brand, lang);
      downloads.set(key, info);
      info.catch(() => downloads.delete(key));
    }
    return info;
  };
}

async function buildDownload(brand: Brand, lang: Lang): Promise<AppDownloadInfo> {
  const release = appReleaseOf(brand, lang);
  const qr = (text: string) => QRCode.toDataURL(text, QR_OPTIONS);
  const [androidQr, iosQr, tvQr] = await Promise.all([
    qr(release.androidUrl),
    qr(release.iosUrl),
    qr(release.tvUrl),
  ]);
  return { ...release, androidQr, iosQr, tvQr };
}
