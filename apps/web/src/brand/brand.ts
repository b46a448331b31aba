import {
  type Brand,
  type BrandWording,
  brandForHost,
  brandLogo,
  brandWording,
  type Lang,
} from "@keyway/shared";
import { useLang } from "../i18n/index.ts";

/** The operator brand of this page, chosen once from the host name (SPEC §1). */
export const brand: Brand = brandForHost(window.location.hostname);
export const logoUrl: string = brandLogo(brand);

export function wordingFor(lang: Lang): BrandWording {
  return brandWording(brand, lang);
}

export function useBrand(): { brand: Brand; wording: BrandWording; logo: string } {
  const { lang } = useLang();
  return { brand, wording: wordingFor(lang), logo: logoUrl };
}

/** Favicon = brand logo. */
export function applyBrandIcon(): void {
  let link = document.querySelector<HTMLLinkElement>("link[rel~='icon']");
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    document.head.appendChild(link);
  }
  link.type = "image/svg+xml";
  link.href = logoUrl;
}

/** `color` mixed with white: tint("#0f766e", 0.12) is a light wash of the brand colour. */
export function tint(color: string, amount: number): string {
  const hex = color.replace("#", "");
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join("") : hex;
  const channels = [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16));
  const mixed = channels.map((c) => Math.round(255 - (255 - c) * amount));
  return `#${mixed.map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}
