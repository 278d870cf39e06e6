import { z } from 'zod';
import { ListParametersSchema, Valor } from './wire';

/**
 * Infractions (MED) as Efí serves them to its receivers, outside API Pix proper (BACEN's API Pix does
 * not show the block a MED claim causes, bacen/pix-api #450): `GET /v2/gn/infracoes` lists a
 * window, a page at a time, and `POST /v2/gn/infracoes/{idInfracao}/defesa` answers one
 * ({analise, justificativa}; OAuth scopes gn.infractions.read and gn.infractions.write). Paths are
 * under the API's base (…/v2), as API Pix's are. Efí publishes the routes, the defence's body and
 * the statuses; the item's other field names follow API Pix's words (valor, endToEndId, horario).
 */
export const InfractionPaths = {
  list: 'gn/infracoes',
  defense: (idInfracao: string) => `gn/infracoes/${encodeURIComponent(idInfracao)}/defesa`,
} as const;

/**
 * Where an infraction stands at the PSP: ABERTA (the payer's PSP filed it, the receiver may answer),
 * EM_DEFESA (the receiver answered; the PSP analyses), ACEITA (upheld: the PSP returns the money
 * with a MED devolução), REJEITADA (not upheld: the receiver keeps it), CANCELADA_EFI (withdrawn).
 */
export const INFRACAO_STATUSES = ['ABERTA', 'EM_DEFESA', 'ACEITA', 'REJEITADA', 'CANCELADA_EFI'] as const;
export type InfracaoStatus = (typeof INFRACAO_STATUSES)[number];
/** The statuses of an infraction that is over: the PSP decided. */
export const INFRACAO_DECIDED = ['ACEITA', 'REJEITADA', 'CANCELADA_EFI'] as const satisfies readonly InfracaoStatus[];
export type InfracaoDecision = (typeof INFRACAO_DECIDED)[number];

/** What the payer claimed happened (Efí's tipoSituacao). */
export const INFRACAO_SITUACOES = [
  'golpe',
  'aquisição da conta',
  'coerção',
  'acesso fraudulento',
  'outro',
  'desconhecido',
] as const;

/** The receiver's answer: it agrees the money goes back (aceito) or contests the claim (rejeitado). */
export const DEFESA_ANALISES = ['aceito', 'rejeitado'] as const;

/** The most a defence's text holds (a peer PSP's limit; Efí publishes none). */
export const MAX_JUSTIFICATIVA_CHARS = 1000;

/** POST /v2/gn/infracoes/{idInfracao}/defesa. */
export const DefesaRequestSchema = z.object({
  analise: z.enum(DEFESA_ANALISES),
  justificativa: z.string().min(1).max(MAX_JUSTIFICATIVA_CHARS),
});
export type DefesaRequest = z.infer<typeof DefesaRequestSchema>;

/** One infraction against a Pix the receiver received. */
export const InfracaoSchema = z.object({
  idInfracao: z.string().min(1).max(64),
  /** The Pix it contests. */
  endToEndId: z.string().min(1).max(35),
  /** How much of it the claim puts at risk (blocked at the receiver's account). */
  valor: Valor,
  /** Read as any text (INFRACAO_SITUACOES are Efí's): a new one must not make a page unreadable. */
  tipoSituacao: z.string().max(60),
  /** The claim as the payer's PSP reported it. */
  motivo: z.string().max(10_000),
  /**
   * One of INFRACAO_STATUSES; read as any text, and an unknown one is treated as still open (the
   * money stays blocked until the PSP says otherwise).
   */
  status: z.string().max(40),
  /** The last moment the receiver may answer (RFC 3339). */
  prazo: z.string(),
  horario: z.object({
    criacao: z.string(),
    /** The infraction's last change (opened, answered, decided): what a listing's window reads. */
    atualizacao: z.string(),
  }),
  defesa: z.object({ analise: z.enum(DEFESA_ANALISES), justificativa: z.string(), horario: z.string() }).optional(),
});
export type Infracao = z.infer<typeof InfracaoSchema>;

/** GET /v2/gn/infracoes?inicio&fim[&paginacao.paginaAtual&paginacao.itensPorPagina]: API Pix's paging. */
export const InfracaoListSchema = z.object({
  parametros: ListParametersSchema,
  infracoes: z.array(InfracaoSchema),
});
export type InfracaoList = z.infer<typeof InfracaoListSchema>;
