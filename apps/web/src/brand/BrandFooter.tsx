import { AndroidOutlined, AppleOutlined, GlobalOutlined } from "@ant-design/icons";
import { Space, Typography } from "antd";
import { useLang } from "../i18n/index.ts";
import { useBrand } from "./brand.ts";

/** Footer of the login shell: copyright, website and app download links of the brand. */
export function BrandFooter() {
  const { brand, wording } = useBrand();
  const { t } = useLang();
  return (
    <footer className="kw-footer">
      <Space size="middle" wrap className="kw-footer-links">
        <Typography.Link href={brand.website} target="_blank" rel="noreferrer">
          <GlobalOutlined /> {t("common.website")}
        </Typography.Link>
        <Typography.Link href={brand.app.android} target="_blank" rel="noreferrer">
          <AndroidOutlined /> {t("common.android")}
        </Typography.Link>
        <Typography.Link href={brand.app.ios} target="_blank" rel="noreferrer">
          <AppleOutlined /> {t("common.ios")}
        </Typography.Link>
        <Typography.Link href={`mailto:${brand.supportEmail}`}>
          {t("common.support")}
        </Typography.Link>
      </Space>
      <div className="kw-footer-copy">{wording.footer}</div>
    </footer>
  );
}
