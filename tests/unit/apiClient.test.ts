/**
 * The generated client (scripts/api-client.ts → src/services/generated/) against the
 * OpenAPI document of the routes as declared now:
 * - the committed modules are what the document generates (npm run api:check's rule);
 * - a route whose response schema changes leaves its module stale until regenerated;
 * - an operation is a function of its path parameters, query and body, resolving to
 *   the reply's data typed from the response schema and the types of schemas/.
 */
import { buildDocument, renderClient, staleFiles, type OpenApiDocument } from '../../scripts/api-client';

let doc: OpenApiDocument;
beforeAll(async () => {
  doc = await buildDocument();
}, 60_000);

test('the committed client is the one the routes generate', () => {
  expect(staleFiles(renderClient(doc))).toEqual([]);
});

test("a route's changed response schema makes its module stale, and only that one", () => {
  const changed = structuredClone(doc);
  const data = changed.paths['/api/report/v1/report/lockState/{id}'].get.responses['200'].content!['application/json'].schema.properties.data;
  data.properties.heldSince = { type: 'string', format: 'date-time' };
  expect(staleFiles(renderClient(changed))).toEqual(['report.ts']);
});

test('an operation is typed from its route: path parameter, body, reply data and the schema types', () => {
  const report = renderClient(doc).get('report.ts')!;
  expect(report).toContain('export function getReportDetailById(id: number, options: CallOptions = {}): Promise<GetReportDetailByIdData>');
  expect(report).toMatch(/export type GetReportDetailByIdData = \(EntitiesReport & \{ id: .*mode: \("own" \| "remote"\); .*actions: Array<string>; exam: \{ id: /);
  expect(report).toContain('export type PostReportSubmitByIdBody = EntitiesReportAction;');
  expect(report).toContain("import type { Report as EntitiesReport } from '../../shared/generated/entities/report';");
  // Bytes (a signature's picture) are fetched as URLs, not through the envelope.
  expect(report).not.toContain('getPrintSignatureImageById');
});

test('a nullable reads null once, and a form-encoded body is typed and sent as the form', () => {
  const uaa = renderClient(doc).get('uaa.ts')!;
  expect(uaa).toContain('export type PostLogoutData = null;');
  expect(uaa).not.toMatch(/\(null\)|null \| null/);
  expect(uaa).toMatch(/export type PostLoginForm = \{ loginType: \("password" \| "sms"\); mobile: string; password\?: string;/);
  expect(uaa).toContain('export function postLogin(form: PostLoginForm, options: CallOptions = {}): Promise<PostLoginData>');
  expect(uaa).toContain('method: "POST", form });');
});
