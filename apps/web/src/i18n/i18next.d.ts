import "i18next";

// i18next's own key typing (resources in CustomTypeOptions) instantiates types too deep for
// tsc once the texts grew past ~2,000 keys (TS2589). Keys are checked by our lighter
// `TextKey` in index.ts instead; i18next itself takes strings.
declare module "i18next" {
  interface CustomTypeOptions {
    defaultNS: "translation";
  }
}
