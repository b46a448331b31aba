import {
  AndroidOutlined,
  AppleOutlined,
  DesktopOutlined,
  DownloadOutlined,
  GlobalOutlined,
} from "@ant-design/icons";
import type { AppDownloadInfo } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { Button, Card, Col, Flex, Row, Skeleton, Tag, Typography } from "antd";
import type { ReactNode } from "react";
import { portalApi, portalKeys } from "../../api/portal.ts";
import { BrandFooter } from "../../brand/BrandFooter.tsx";
import { useBrand } from "../../brand/brand.ts";
import { LanguageSwitch } from "../../components/LanguageSwitch.tsx";
import { useLang } from "../../i18n/index.ts";
import "./appDownload.css";
import { LoadFailed } from "../../components/LoadFailed.tsx";

interface AppCard {
  key: "android" | "ios" | "tv";
  icon: ReactNode;
  url: string;
  qr: string;
  version: string;
}

function cardsOf(info: AppDownloadInfo): AppCard[] {
  return [
    {
      key: "android",
      icon: <AndroidOutlined />,
      url: info.androidUrl,
      qr: info.androidQr,
      version: info.androidVersion,
    },
    {
      key: "ios",
      icon: <AppleOutlined />,
      url: info.iosUrl,
      qr: info.iosQr,
      version: info.iosVersion,
    },
    {
      key: "tv",
      icon: <DesktopOutlined />,
      url: info.tvUrl,
      qr: info.tvQr,
      version: info.tvVersion,
    },
  ];
}

/**
 * App download (SPEC §2 "app download", §3 "Version info"): the brand of this host, its
 * phone, tablet and TV apps with versions, links and QR codes from POST /common/appDownload.
 */
export function AppDownloadPage() {
  const { t, lang } = useLang();
  const { brand, wording, logo } = useBrand();
  const info = useQuery({
    queryKey: portalKeys.appDownload(brand.id, lang),
    queryFn: () => portalApi.appDownload(brand.id),
    meta: { silent: true },
  });
  const data = info.data;
  return (
    <div className="kw-auth kw-download" data-testid="app-download" data-brand={brand.id}>
      <header className="kw-auth-top">
        <span className="kw-brand">
          <img src={logo} width={32} height={32} alt="" className="kw-brand-logo" />
          <span className="kw-brand-name" data-testid="brand-name">
            {wording.name}
          </span>
        </span>
        <LanguageSwitch />
      </header>
      <main className="kw-download-main">
        <Flex vertical align="center" gap={4} className="kw-download-head">
          <Typography.Title level={2}>{t("portal.download.title")}</Typography.Title>
          <Typography.Text type="secondary">
            {t("portal.download.subtitle", { name: data?.OemName ?? wording.name })}
          </Typography.Text>
        </Flex>
        {info.isError ? (
          <LoadFailed error={info.error} onRetry={info.refetch} />
        ) : (
          <Row gutter={[24, 24]} justify="center" className="kw-download-cards">
            {(data ? cardsOf(data) : [null, null, null]).map((card, i) => (
              <Col key={card?.key ?? i} xs={24} sm={12} lg={8}>
                <Card className="kw-download-card" data-testid={`download-${card?.key ?? i}`}>
                  {card ? (
                    <Flex vertical align="center" gap={12}>
                      <Typography.Title level={4} className="kw-download-card-title">
                        {card.icon} {t(`portal.download.${card.key}`)}
                      </Typography.Title>
                      <Tag color="blue" data-testid={`download-${card.key}-version`}>
                        {t("portal.download.version", { version: card.version })}
                      </Tag>
                      <img
                        src={card.qr}
                        width={180}
                        height={180}
                        alt={t("portal.download.qrAlt", { name: t(`portal.download.${card.key}`) })}
                        className="kw-download-qr"
                        data-testid={`download-${card.key}-qr`}
                      />
                      <Typography.Text type="secondary">
                        {t("portal.download.scan")}
                      </Typography.Text>
                      <Button
                        type="primary"
                        icon={<DownloadOutlined />}
                        href={card.url}
                        target="_blank"
                        rel="noopener noreferrer"
                        data-testid={`download-${card.key}-link`}
                      >
                        {t("portal.download.open")}
                      </Button>
                    </Flex>
                  ) : (
                    <Skeleton active paragraph={{ rows: 6 }} />
                  )}
                </Card>
              </Col>
            ))}
          </Row>
        )}
        {data && (
          <Flex
            justify="center"
            gap={16}
            wrap
            className="kw-download-versions"
            data-testid="download-versions"
          >
            <Typography.Text type="secondary">
              {t("portal.download.web", { version: data.version })}
            </Typography.Text>
            <Typography.Text type="secondary" data-testid="download-lowest">
              {t("portal.download.lowest", { version: data.lowestVersion })}
            </Typography.Text>
            <Typography.Link href={data.url} target="_blank" rel="noopener noreferrer">
              <GlobalOutlined /> {t("portal.download.website")}
            </Typography.Link>
          </Flex>
        )}
      </main>
      <BrandFooter />
    </div>
  );
}
