/**
 * The generated client (scripts/api-client.ts → src/services/generated/) against the
 * OpenAPI document of the routes as declared now:
 * - the committed modules are what the document generates (npm run api:check's rule);
 * - a route whose response schema changes leaves its module stale until regenerated;
 * - an operation is a function of its path parameters, query and body, resolving to
 *   the reply's data typed from the response schema and the types of schemas/;
 * - a call may be given its own request function (a service's test drives it in node),
 *   which receives the path and options the wrapper would, without itself among them.
 */
import { buildDocument, renderClient, staleFiles, type OpenApiDocument } from '../../scripts/api-client';
import { getPolicyByPurpose, postUpload } from '../../src/services/generated/file';
import type { RequestFn, RequestOptions } from '../../src/services/request';

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
  expect(report).toContain('export function getReportDetailById(id: number, { request: send = request, ...options }: CallOptions = {}): Promise<GetReportDetailByIdData>');
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
  expect(uaa).toContain('export function postLogin(form: PostLoginForm, { request: send = request, ...options }: CallOptions = {}): Promise<PostLoginData>');
  expect(uaa).toContain('method: "POST", form });');
});

test('a call given its own request function sends through it, options as the wrapper would get them', async () => {
  const calls: Array<[string, RequestOptions | undefined]> = [];
  const fake = (async (path: string, options?: RequestOptions) => {
    calls.push([path, options]);
    return { sent: path };
  }) as RequestFn;
  await expect(getPolicyByPurpose('signature', { request: fake, quiet: true })).resolves.toEqual({ sent: '/api/file/v1/policy/signature' });
  const raw = new Blob(['x']);
  await postUpload({ purpose: 'examAttachment', ownerId: 7, name: 'a b.pdf' }, { request: fake, raw });
  expect(calls).toEqual([
    ['/api/file/v1/policy/signature', { quiet: true, method: 'GET' }],
    ['/api/file/v1/upload', { raw, method: 'POST', query: { purpose: 'examAttachment', ownerId: 7, name: 'a b.pdf' } }],
  ]);
});
