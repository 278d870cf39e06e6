import { z } from 'zod';

/**
 * BACEN's API Pix on the wire (the subset this platform uses), shared by the client and the sandbox
 * PSP that simulates it. Amounts are strings with two decimals ("25.50").
 */
export const Valor = z.string().regex(/^\d{1,10}\.\d{2}$/);

/** OAuth2 client credentials answer. */
export const TokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.string(),
  expires_in: z.number().int().positive(),
  scope: z.string().optional(),
});

/** PUT /cob/{txid} body. */
export const CobRequestSchema = z.object({
  calendario: z.object({ expiracao: z.number().int().positive() }),
  valor: z.object({ original: Valor }),
  chave: z.string().min(1),
  solicitacaoPagador: z.string().max(140).optional(),
});
export type CobRequest = z.infer<typeof CobRequestSchema>;

export const COB_STATUSES = ['ATIVA', 'CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP'] as const;

/** A charge as PUT and GET /cob/{txid} answer it. */
export const CobSchema = z.object({
  txid: z.string(),
  revisao: z.number().int(),
  status: z.enum(COB_STATUSES),
  calendario: z.object({ criacao: z.string(), expiracao: z.number().int() }),
  loc: z.object({ id: z.number().int(), location: z.string(), tipoCob: z.literal('cob') }),
  location: z.string(),
  valor: z.object({ original: Valor }),
  chave: z.string(),
  solicitacaoPagador: z.string().optional(),
  pixCopiaECola: z.string(),
  /** GET /cob: the Pix the charge received (API Pix lists them once the charge is CONCLUIDA). */
  pix: z.array(z.lazy(() => PixEntrySchema)).optional(),
});
export type Cob = z.infer<typeof CobSchema>;

/** PATCH /cob/{txid} body, as the platform sends it: the receiver removes an active charge. */
export const CobRemovalSchema = z.object({ status: z.literal('REMOVIDA_PELO_USUARIO_RECEBEDOR') });

/** PUT /pix/{e2eid}/devolucao/{id} body: `descricao` is what the payer reads in their statement. */
export const DevolucaoRequestSchema = z.object({ valor: Valor, descricao: z.string().max(140).optional() });

export const DEVOLUCAO_STATUSES = ['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO'] as const;

/**
 * Why a devolução was made: ORIGINAL (the receiver returns the Pix, the default) and RETIRADA (of a
 * Pix Saque or Troco) are asked by the receiver; MED_FRAUDE, MED_OPERACIONAL and MED_PIX_AUTOMATICO
 * are made by the PSP itself under the Mecanismo Especial de Devolução, with an id of its choosing.
 */
export const DEVOLUCAO_NATUREZAS = [
  'ORIGINAL',
  'RETIRADA',
  'MED_FRAUDE',
  'MED_OPERACIONAL',
  'MED_PIX_AUTOMATICO',
] as const;
export type DevolucaoNatureza = (typeof DEVOLUCAO_NATUREZAS)[number];

/** A devolução as PUT and GET /pix/{e2eid}/devolucao/{id} answer it, and as a callback's Pix carries it. */
export const DevolucaoSchema = z.object({
  id: z.string(),
  rtrId: z.string(),
  valor: Valor,
  descricao: z.string().optional(),
  /**
   * One of DEVOLUCAO_NATUREZAS, ORIGINAL when absent (API Pix's default). Read as any text: a
   * natureza BACEN adds later must not make the Pix that carries it (and its callback, its listing
   * page) unreadable; the adapter reads an unknown one as "other".
   */
  natureza: z.string().max(40).optional(),
  horario: z.object({ solicitacao: z.string(), liquidacao: z.string().optional() }),
  status: z.enum(DEVOLUCAO_STATUSES),
  /** Why it reached its status (a PSP may say why it was NAO_REALIZADO). */
  motivo: z.string().optional(),
});
export type Devolucao = z.infer<typeof DevolucaoSchema>;

/** API Pix's error body (RFC 7807): `detail` says what the PSP refused. */
export const ProblemSchema = z.object({
  title: z.string().optional(),
  status: z.number().optional(),
  detail: z.string().optional(),
});

/**
 * The sandbox PSP's extension of the callback: API Pix has no notification for a Pix held for
 * analysis, so the sandbox marks such a Pix (and the end of its analysis) with `analise`.
 */
export const ANALYSIS_STATES = ['EM_ANALISE', 'LIBERADO', 'REJEITADO'] as const;
export type AnalysisState = (typeof ANALYSIS_STATES)[number];

/** A received Pix as the PSP tells it: in its callback, in GET /pix and in a charge's GET /cob. */
export const PixEntrySchema = z.object({
  endToEndId: z.string().min(1).max(35),
  txid: z.string().min(1).max(35),
  valor: Valor,
  horario: z.string(),
  analise: z.enum(ANALYSIS_STATES).optional(),
  /** The Pix's refunds: a PSP calls again when one of them settles. */
  devolucoes: z.array(DevolucaoSchema).optional(),
});
export type PixEntry = z.infer<typeof PixEntrySchema>;

/**
 * A Pix as the PSP's callback and GET /pix tell it: one paid without a charge (to the key itself,
 * or a static QR) has no txid. It is none of the platform's, but it must not make the whole
 * callback or listing unreadable.
 */
export const ReceivedPixSchema = PixEntrySchema.extend({ txid: z.string().min(1).max(35).optional() });
export type ReceivedPix = z.infer<typeof ReceivedPixSchema>;

/** The PSP's webhook: POST {webhookUrl}/pix with the Pix received. */
export const PixCallbackSchema = z.object({ pix: z.array(ReceivedPixSchema) });
export type PixCallback = z.infer<typeof PixCallbackSchema>;

/** What a windowed list of API Pix (GET /pix, GET /v2/gn/infracoes) says of itself: its window and its page. */
export const ListParametersSchema = z.object({
  inicio: z.string(),
  fim: z.string(),
  paginacao: z.object({
    paginaAtual: z.number().int().min(0),
    itensPorPagina: z.number().int().positive(),
    quantidadeDePaginas: z.number().int().min(0),
    quantidadeTotalDeItens: z.number().int().min(0),
  }),
});
export type ListParameters = z.infer<typeof ListParametersSchema>;

/** The `parametros` of page `page` (from 0) of `total` items, `perPage` a page, in a window. */
export function listParameters(
  window: { from: Date; to: Date },
  page: number,
  perPage: number,
  total: number,
): ListParameters {
  return {
    inicio: window.from.toISOString(),
    fim: window.to.toISOString(),
    paginacao: {
      paginaAtual: page,
      itensPorPagina: perPage,
      quantidadeDePaginas: Math.ceil(total / perPage),
      quantidadeTotalDeItens: total,
    },
  };
}

/**
 * GET /pix?inicio=…&fim=…&paginacao.paginaAtual=…&paginacao.itensPorPagina=…: the Pix received in a
 * window (inicio and fim inclusive, RFC 3339), a page at a time; pages count from 0.
 */
export const PixListSchema = z.object({
  parametros: ListParametersSchema,
  pix: z.array(ReceivedPixSchema),
});
export type PixList = z.infer<typeof PixListSchema>;

/** PUT /webhook/{chave} body: where the PSP POSTs the Pix received to the key ({webhookUrl}/pix). */
export const WebhookRequestSchema = z.object({ webhookUrl: z.url({ protocol: /^https$/ }).max(2048) });
