/**
 * /api/ris/v1: registration and the exam list (./exam.ts), appointment scheduling
 * (./schedule.ts). Devices, exam parts and
 * exam items of the same prefix are served by the generic table store
 * (config/resources.json), mounted by lib/tableResource.ts.
 */
import type { FastifyInstance } from 'fastify';
import examRoutes from './exam';
import exportRoutes from './export';
import scheduleRoutes from './schedule';

export default async function risRoutes(fastify: FastifyInstance) {
  await fastify.register(examRoutes);
  await fastify.register(exportRoutes);
  await fastify.register(scheduleRoutes);
}
