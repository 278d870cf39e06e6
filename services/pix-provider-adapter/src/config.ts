import { CommonEnv, loadConfig, port, z } from '@pix/config';

export const config = loadConfig(
  z.object({
    ...CommonEnv,
    MONGO_URL: z.string().default('mongodb://127.0.0.1:27017/pix'),
    OPS_HOST: z.string().default('127.0.0.1'),
    OPS_PORT: port(9103),
    /** The adapter's own HTTP port: the PSP's payment callbacks arrive here. */
    HTTP_HOST: z.string().default('127.0.0.1'),
    HTTP_PORT: port(8081),
    PIX_PROVIDER: z.enum(['sandbox']).default('sandbox'),
    /** Merchant name and city written into every BR Code (EMV fields 59 and 60). */
    PIX_MERCHANT_NAME: z.string().min(1).max(25).default('PIX PAYMENTS SANDBOX'),
    PIX_MERCHANT_CITY: z.string().min(1).max(15).default('SAO PAULO'),
    /** Host of the sandbox PSP's charge locations (the URL a dynamic BR Code points at). */
    SANDBOX_LOCATION_HOST: z.string().default('pix.sandbox.local'),
    /** Shared secret the sandbox PSP presents on callbacks. */
    PSP_CALLBACK_SECRET: z.string().min(16).default('sandbox-callback-secret-change-me'),
  }),
);
export type Config = typeof config;
