/** Registering exams through the API, as the DICOM tests' fixtures do. */
import type { FastifyInstance } from "fastify";
import { authed } from "./auth";

/** Saves a new exam as the user of `token` (a walk-in: it is in the worklist at once); the exam as the API answers it. */
export async function registerExam(
  app: FastifyInstance,
  token: string,
  payload: Record<string, unknown>,
): Promise<Record<string, any>> {
  const r = await app.inject({
    method: "POST",
    url: "/api/ris/v1/exam/save",
    headers: authed(token),
    payload,
  });
  expect(r.json().status).toBe("0");
  return r.json().data;
}
