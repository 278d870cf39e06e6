import type { NatsIdentity } from './identities';
import { Subjects } from './subjects';

/** A core NATS message outside any stream, sent to whoever listens at that moment. */
export interface NoticeDefinition {
  subject: string;
  publishers: readonly NatsIdentity[];
  subscribers: readonly NatsIdentity[];
}

export const Notices = {
  /** The gateway tells every dispatcher replica that a store's webhook secrets changed. */
  webhookSecretsRotated: {
    subject: Subjects.storesWebhookSecretsRotated,
    publishers: ['gateway'],
    subscribers: ['webhook-dispatcher'],
  },
  /** The payments replica that stored a statement check tells every replica, for its gauges. */
  statementChecked: {
    subject: Subjects.statementChecked,
    publishers: ['payments'],
    subscribers: ['payments'],
  },
} as const satisfies Record<string, NoticeDefinition>;
