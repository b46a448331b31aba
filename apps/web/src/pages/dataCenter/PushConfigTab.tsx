import { Flex } from "antd";
import { EnterpriseConfigCard } from "./EnterpriseConfigCard.tsx";
import { UserConfigCard } from "./UserConfigCard.tsx";

/**
 * Push settings. Personal context: the user's own switches and caps. Enterprise context: the
 * enterprise's settings (admins change them) and the member's own switches and caps in it.
 */
export function PushConfigTab({ eid }: { eid: number }) {
  return (
    <Flex vertical gap={16}>
      {eid !== 0 && <EnterpriseConfigCard eid={eid} />}
      <UserConfigCard eid={eid} />
    </Flex>
  );
}
