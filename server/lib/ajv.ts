/**
 * The options of the server's ajv (Fastify's `ajv` option), in one place so that tests
 * compile the schemas exactly as the server does. Imports nothing of the server itself.
 */
import { customFormats } from '../../config/formats';

export const AJV_OPTIONS = {
  customOptions: {
    allErrors: false,
    coerceTypes: 'array' as const,
    removeAdditional: true,
    useDefaults: true,
    // multipleOfPrecision: a price of 0.29 is a multiple of 0.01 although 0.29 / 0.01 is not an integer in floating point.
    multipleOfPrecision: 9,
  },
  // The schemas' own formats (id-card, mobile-cn, letters, …): the functions the client validates with.
  // Fastify still adds ajv-formats (date-time, ipv4, email, …) because this plugin is not that one.
  plugins: [customFormats],
};
