/** Where API Pix's error types live: each problem's `type` is this followed by its title. */
export const PROBLEM_TYPE_BASE = 'https://pix.bcb.gov.br/api/v2/error/';

/** The API Pix problems a PSP answers, by title (BACEN's error catalogue, the subset this platform meets). */
export const PROBLEM_TITLES = [
  'AcessoNegado',
  'RequisicaoInvalida',
  'NaoEncontrado',
  'ServicoIndisponivel',
  'CobOperacaoInvalida',
  'CobNaoEncontrado',
  'PixNaoEncontrado',
  'DevolucaoOperacaoInvalida',
  'DevolucaoNaoEncontrada',
  'ConsultaInvalida',
  'WebhookOperacaoInvalida',
  'WebhookNaoEncontrado',
  /** Efí's infractions (MED), beside API Pix: no such infraction, or one that cannot be answered now. */
  'InfracaoNaoEncontrada',
  'InfracaoOperacaoInvalida',
] as const;
export type ProblemTitle = (typeof PROBLEM_TITLES)[number];

/** An API Pix error body (RFC 7807, application/problem+json). */
export interface Problem {
  type: string;
  title: ProblemTitle;
  status: number;
  detail: string;
}

export function problem(status: number, title: ProblemTitle, detail: string): Problem {
  return { type: `${PROBLEM_TYPE_BASE}${title}`, title, status, detail };
}
