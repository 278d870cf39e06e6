/**
 * An amount as a Brazilian merchant types it in the sandbox's "another amount" field (`40,00`,
 * `1.234,50`, `R$ 40`, or `40.5` as JavaScript writes it) as a number; null when it is not one.
 * Range and centavos are the sandbox route's own validation (SandboxPayBodySchema, libs/contracts).
 */
export function parseBrlInput(text: string): number | null {
  const trimmed = text.trim().replace(/^R\$\s*/, '');
  if (!/^\d{1,3}(\.\d{3})+(,\d{1,2})?$|^\d+([.,]\d{1,2})?$/.test(trimmed)) return null;
  const normalized =
    trimmed.includes(',') || /\.\d{3}/.test(trimmed) ? trimmed.replace(/\./g, '').replace(',', '.') : trimmed;
  return Number(normalized);
}
