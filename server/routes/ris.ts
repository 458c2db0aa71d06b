/**
 * /api/ris/v1: registration and the exam list (./exam.ts), an exam's operation record
 * (./examLog.ts), appointment scheduling (./schedule.ts), regional send (./send.ts).
 * The exam list's image matching calls are in ./images.ts. Devices, exam parts and
 * exam items of the same prefix are served by the generic table store
 * (config/resources.json), mounted by lib/tableResource.ts.
 */
import type { FastifyInstance } from 'fastify';
import examRoutes from './exam';
import examLogRoutes from './examLog';
import exportRoutes from './export';
import scheduleRoutes from './schedule';
import sendRoutes from './send';
import { examImageRoutes } from './images';

export default async function risRoutes(fastify: FastifyInstance) {
  await fastify.register(examRoutes);
  await fastify.register(examLogRoutes);
  await fastify.register(exportRoutes);
  await fastify.register(scheduleRoutes);
  await fastify.register(sendRoutes);
  await fastify.register(examImageRoutes);
}
