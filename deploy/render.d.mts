/** NAME=value lines of an environment file; `#` starts a comment line. */
export function parseEnvFile(text: string): Record<string, string>;
/** The template with every placeholder filled in; throws naming every value missing. */
export function render(template: string, values: Record<string, string | undefined>): string;
