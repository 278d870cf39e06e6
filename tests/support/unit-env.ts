import { randomBytes } from 'node:crypto';

/**
 * The unit layer's environment. A service's config module reads process.env when imported, and the
 * settings that guard a door have no default, so a unit test importing one (its schema's own test)
 * would see that service refuse to start. Those tests parse environments of their own; this only
 * lets the module load, with throwaway values, never over a value already set.
 */
const DOOR_SECRETS: Record<string, string> = {
  DASHBOARD_SESSION_SECRET: randomBytes(32).toString('base64url'),
  SECRETS_KEYS: `unit:${randomBytes(32).toString('base64')}`,
  PSP_CALLBACK_SECRET: randomBytes(24).toString('base64url'),
};
for (const [name, value] of Object.entries(DOOR_SECRETS)) process.env[name] ??= value;
