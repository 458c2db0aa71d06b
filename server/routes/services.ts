/**
 * The versioned service prefixes of the API (spec section 7). A service's routes
 * live in routes/<tag>.ts and are mounted under its prefix; one list, used by the
 * router and by the OpenAPI tags.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import uaa from './uaa';
import ucenter from './ucenter';
import bdt from './bdt';
import ris from './ris';
import platform from './platform';
import { studyRoutes } from './images';
import report from './report';
import viewerRoutes from './viewer';
import stat from './stat';
import file from './file';
import consult from './consult';

export interface ServiceDef {
  tag: string;
  prefix: string;
  description: string;
  /** The service's routes, mounted under `prefix` (absent until the service is built). */
  routes?: FastifyPluginAsync;
}

/** /api/pacs/v1: the archive's studies (./images.ts) and the viewer's calls (./viewer.ts). */
async function pacs(fastify: FastifyInstance) {
  await studyRoutes(fastify);
  await viewerRoutes(fastify);
}

export const SERVICES: ServiceDef[] = [
  { tag: 'uaa', prefix: '/api/uaa/v1', description: 'Authentication: login, sessions, passwords, captcha, SMS codes', routes: uaa },
  { tag: 'ucenter', prefix: '/api/ucenter/v1', description: 'Users, roles, organisations', routes: ucenter },
  { tag: 'file', prefix: '/api/file/v1', description: 'File policy, upload (small or resumable in chunks), download and delete', routes: file },
  { tag: 'ris', prefix: '/api/ris/v1', description: 'Registration, appointment, exam list, devices, exam items', routes: ris },
  { tag: 'report', prefix: '/api/report/v1', description: 'Reports, templates, printing, notices', routes: report },
  { tag: 'pacs', prefix: '/api/pacs/v1', description: 'Studies, matching, images, viewer', routes: pacs },
  { tag: 'efilm', prefix: '/api/efilm/v1', description: 'Electronic film' },
  { tag: 'ai', prefix: '/api/ai/v1', description: 'AI-assisted diagnosis' },
  { tag: 'consult', prefix: '/api/consult/v1', description: 'Tele-consultation: applications, review, experts, materials, the consultation report, notices', routes: consult },
  { tag: 'bdt', prefix: '/api/bdt/v1', description: 'Base data and dictionaries', routes: bdt },
  { tag: 'qc', prefix: '/api/qc/v1', description: 'Quality control' },
  { tag: 'stat', prefix: '/api/stat/v1', description: 'Statistics: the declared statistics views (schemas/stats)', routes: stat },
  { tag: 'share', prefix: '/api/share/v1', description: 'Image sharing records' },
  { tag: 'platform', prefix: '/api', description: 'Health and platform information', routes: platform },
];
