import { type CountryDialCode, countryDialCodes, DEFAULT_COUNTRY_CODE } from "@keyway/shared";
import { Select } from "antd";
import { useEffect, useMemo, useState } from "react";
import { useLang } from "../i18n/index.ts";

let cache: CountryDialCode[] | null = null;
function allCodes(): CountryDialCode[] {
  cache ??= countryDialCodes();
  return cache;
}

function isoFor(dial: string | undefined, current?: string): string {
  const codes = allCodes();
  const wanted = (dial ?? DEFAULT_COUNTRY_CODE).replace(/^\+|^00/, "");
  if (current && codes.find((c) => c.iso === current)?.dial === wanted) return current;
  return codes.find((c) => c.dial === wanted)?.iso ?? "CN";
}

interface Props {
  value?: string;
  onChange?: (dial: string) => void;
  id?: string;
  "data-testid"?: string;
  disabled?: boolean;
}

/**
 * Country-code picker (country name, Chinese name, dial code; several countries share a dial
 * code, so options are keyed by ISO code while the form value is the dial code).
 */
export function CountryCodeSelect({ value, onChange, id, disabled, ...rest }: Props) {
  const { lang, t } = useLang();
  const [iso, setIso] = useState(() => isoFor(value));

  useEffect(() => {
    setIso((current) => isoFor(value, current));
  }, [value]);

  const options = useMemo(
    () =>
      allCodes().map((c) => ({
        value: c.iso,
        dial: c.dial,
        search: `${c.en} ${c.zh} +${c.dial} ${c.iso}`.toLowerCase(),
        label: (
          <span className="kw-country-option">
            <span>{lang === "en" ? c.en : `${c.zh} ${c.en}`}</span>
            <span className="kw-country-dial">+{c.dial}</span>
          </span>
        ),
      })),
    [lang],
  );

  return (
    <Select
      id={id}
      data-testid={rest["data-testid"]}
      className="kw-country-select"
      value={iso}
      disabled={disabled}
      aria-label={t("field.countryCode")}
      popupMatchSelectWidth={300}
      showSearch={{
        filterOption: (input, option) =>
          (option?.search ?? "").includes(input.trim().toLowerCase().replace(/^00/, "+")),
      }}
      placeholder={t("placeholder.countrySearch")}
      labelRender={() => `+${allCodes().find((c) => c.iso === iso)?.dial ?? DEFAULT_COUNTRY_CODE}`}
      options={options}
      onChange={(next: string) => {
        setIso(next);
        const dial = allCodes().find((c) => c.iso === next)?.dial ?? DEFAULT_COUNTRY_CODE;
        onChange?.(dial);
      }}
    />
  );
}
