import { ShopOutlined } from "@ant-design/icons";
import { Button, Result } from "antd";
import { type ReactNode, useEffect } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { useLang } from "../i18n/index.ts";
import { PERSONAL_DEVICES_ROUTE, parseDeviceType } from "../paths.ts";
import { selectCurrentContext, useAppStore } from "../store/app.ts";

export interface EnterpriseList {
  eid: number;
  /** 1 the enterprise's own list, 2 its maintenance list (`?type=`). */
  type: 1 | 2;
  name: string;
}

/**
 * A page of one of the current enterprise's lists (`?type=1|2`: devices, projects): keeps the
 * side navigation's list in step with the address, and without an enterprise context says so
 * with a way back to the personal devices. `children` is rendered afresh for each list.
 */
export function EnterpriseListPage({
  testId,
  children,
}: {
  /** Test id of the "no enterprise context" result. */
  testId: string;
  children: (list: EnterpriseList) => ReactNode;
}) {
  const { t } = useLang();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const type = parseDeviceType(params.get("type"));
  const context = useAppStore(selectCurrentContext);
  const setDeviceType = useAppStore((s) => s.setDeviceType);
  const hasEnterprises = useAppStore((s) => s.enterprisesList.length > 0);

  useEffect(() => {
    if (context.eid !== 0) setDeviceType(type);
  }, [context.eid, type, setDeviceType]);

  if (context.eid === 0) {
    return (
      <div className="kw-page">
        <Result
          status="info"
          icon={<ShopOutlined />}
          title={t("enterprise.noContext")}
          subTitle={hasEnterprises ? t("enterprise.noContextHint") : t("enterprise.noEnterprises")}
          extra={
            <Button type="primary" onClick={() => navigate(PERSONAL_DEVICES_ROUTE)}>
              {t("nav.deviceList")}
            </Button>
          }
          data-testid={testId}
        />
      </div>
    );
  }
  return <>{children({ eid: context.eid, type, name: context.name })}</>;
}
