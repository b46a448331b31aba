import { DownloadOutlined } from "@ant-design/icons";
import { Alert, Button, Flex, type FormRule, Typography } from "antd";
import { useBrand } from "../../brand/brand.ts";
import { useLang } from "../../i18n/index.ts";

/** A rule from a shared field schema, with our own localized message. */
export function fieldRule(
  schema: { safeParse: (v: unknown) => { success: boolean } },
  text: string,
) {
  return {
    validator: async (_rule: unknown, value: unknown) => {
      if (!schema.safeParse(value ?? "").success) throw text;
    },
  } satisfies FormRule;
}

/** The recovery codes, shown once: copy, download, and "I have saved them". */
export function RecoveryCodes({ codes }: { codes: string[] }) {
  const { t } = useLang();
  const { wording } = useBrand();
  const text = codes.join("\n");
  const download = () => {
    const blob = new Blob([`${wording.name}\n\n${text}\n`], { type: "text/plain" });
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url;
    link.download = "recovery-codes.txt";
    link.click();
    URL.revokeObjectURL(url);
  };
  return (
    <Flex vertical gap={12}>
      <Alert type="warning" showIcon title={t("twoFactor.setupCodesHint")} />
      <div
        data-testid="twofactor-recovery-codes"
        style={{ display: "grid", gridTemplateColumns: "repeat(2, max-content)", gap: "8px 24px" }}
      >
        {codes.map((code) => (
          <Typography.Text key={code} code className="kw-code">
            {code}
          </Typography.Text>
        ))}
      </div>
      <Flex gap={8}>
        <Typography.Text
          copyable={{ text, tooltips: [t("twoFactor.copyCodes"), t("twoFactor.copied")] }}
        >
          {t("twoFactor.copyCodes")}
        </Typography.Text>
        <Button size="small" icon={<DownloadOutlined />} onClick={download}>
          {t("twoFactor.downloadCodes")}
        </Button>
      </Flex>
    </Flex>
  );
}
