import { useBrand } from "./brand.ts";

/** The brand's logo tile and (optionally) its name. */
export function BrandLogo({ size = 32, showName = true }: { size?: number; showName?: boolean }) {
  const { wording, logo } = useBrand();
  return (
    <span className="kw-brand">
      <img src={logo} width={size} height={size} alt="" className="kw-brand-logo" />
      {showName && (
        <span className="kw-brand-name" data-testid="brand-name">
          {wording.name}
        </span>
      )}
    </span>
  );
}
