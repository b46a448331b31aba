import { ShopOutlined } from "@ant-design/icons";
import { Button, Flex, Result, Spin } from "antd";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { useEnterpriseList } from "../api/hooks.ts";
import { CreateEnterpriseAction } from "../features/enterprise/CreateEnterpriseAction.tsx";
import { CreateOwnEnterpriseModal } from "../features/enterprise/CreateOwnEnterpriseModal.tsx";
import { useEnterpriseCreation } from "../features/enterprise/enterpriseCreation.ts";
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
 * side navigation's list in step with the address. Without an enterprise context, a user with
 * exactly one enterprise gets it selected (also in a fresh browser, once the list is loaded);
 * with several they choose one here; with none they may create one (or read why not), or go
 * back to the personal devices. `children` is rendered afresh for each list.
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
  const selectContext = useAppStore((s) => s.selectContext);
  const enterprises = useAppStore((s) => s.enterprisesList);
  const list = useEnterpriseList();
  // The dialog outlives the "no enterprise" screen: its next steps show over the new list.
  const [creating, setCreating] = useState(false);
  const { allowed } = useEnterpriseCreation();
  const dialog = <CreateOwnEnterpriseModal open={creating} onClose={() => setCreating(false)} />;
  // One enterprise: nothing to choose. The stored list may be stale or empty in a fresh
  // browser, so this waits for the server's answer before deciding.
  const only = list.isFetched && enterprises.length === 1 ? enterprises[0] : null;
  // Only a page opened without a context picks one, once: a switch to the personal devices
  // from this page must not be undone while the navigation away is under way.
  const mayPick = useRef(context.eid === 0);

  useEffect(() => {
    if (context.eid !== 0) setDeviceType(type);
  }, [context.eid, type, setDeviceType]);
  useEffect(() => {
    if (context.eid !== 0) mayPick.current = false;
    else if (mayPick.current && only) {
      mayPick.current = false;
      selectContext(only);
      setDeviceType(type);
    }
  }, [context.eid, only, type, selectContext, setDeviceType]);

  let content: ReactNode;
  if (context.eid === 0 && ((mayPick.current && only) || (!list.isFetched && list.isFetching))) {
    content = <Spin size="large" className="kw-page-spin" data-testid={`${testId}-loading`} />;
  } else if (context.eid === 0) {
    const several = enterprises.length > 1;
    content = (
      <div className="kw-page">
        <Result
          status="info"
          icon={<ShopOutlined />}
          title={several ? t("entCreate.pickOne") : t("enterprise.noContext")}
          subTitle={
            several
              ? t("enterprise.noContextHint")
              : allowed
                ? t("entCreate.noEnterprises")
                : t("enterprise.noEnterprises")
          }
          extra={
            <Flex vertical align="center" gap={16}>
              {enterprises.length > 0 && (
                <Flex wrap gap={8} justify="center">
                  {enterprises.map((e) => (
                    <Button
                      key={e.eid}
                      icon={<ShopOutlined />}
                      onClick={() => {
                        selectContext(e);
                        setDeviceType(type);
                      }}
                      data-testid={`enterprise-pick-${e.eid}`}
                    >
                      {e.name}
                    </Button>
                  ))}
                </Flex>
              )}
              {!several && <CreateEnterpriseAction onOpen={() => setCreating(true)} />}
              <Flex wrap gap={8} justify="center" align="center">
                <Button onClick={() => navigate(PERSONAL_DEVICES_ROUTE)}>
                  {t("nav.deviceList")}
                </Button>
              </Flex>
            </Flex>
          }
          data-testid={testId}
        />
      </div>
    );
  } else {
    content = children({ eid: context.eid, type, name: context.name });
  }
  // The dialog keeps its place in the tree, so its state survives the switch of content.
  return (
    <>
      {content}
      {dialog}
    </>
  );
}
