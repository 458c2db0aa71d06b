/**
 * Demo roles, departments and accounts of the demo region (password Demo@2026 for
 * all; demo seeding only). Roles are grants of config/permissions.json modules;
 * "*" stands for every action of a module.
 */
export const DEMO_PASSWORD = 'Demo@2026';

export interface DemoRole {
  key: string;
  name: string;
  explain: string;
  dataScope: 'all' | 'own' | 'custom';
  /** Org codes whose data the role also sees (regional hospital authorization). */
  regionOrgCodes?: string[];
  /** Org codes of the primary hospitals whose reports sent up the role works on (remote-centre authorization). */
  remoteOrgCodes?: string[];
  grants: Record<string, string[] | '*'>;
}

export const DEMO_ROLES: DemoRole[] = [
  { key: 'admin', name: '区域管理员', explain: '全部功能、全部数据', dataScope: 'all', grants: { '*': '*' } },
  {
    key: 'clerk',
    name: '登记员',
    explain: '检查登记、预约与登记列表',
    dataScope: 'own',
    grants: {
      registration: ['view', 'add', 'modifyExam', 'terminate', 'checkin', 'hide', 'history', 'operationRecord', 'export', 'configColumns', 'details', 'send'],
      schedule: ['view', 'book', 'modify'],
      image: ['view'],
    },
  },
  {
    key: 'technician',
    name: '技师',
    explain: '检查执行与影像匹配',
    dataScope: 'own',
    grants: {
      registration: ['view', 'checkin', 'history', 'details'],
      schedule: ['view'],
      image: ['view', 'manualLink', 'unbind', 'deleteStudy', 'autoLink', 'upload', 'compare'],
    },
  },
  {
    key: 'radiologist',
    name: '报告医生',
    explain: '书写报告',
    dataScope: 'own',
    grants: {
      registration: ['view', 'history', 'details'],
      image: ['view', 'compare'],
      report: ['view', 'write', 'print', 'withdraw', 'submitSuperior', 'operationRecord', 'image', 'details'],
      myReport: ['view', 'write'],
      privateTemplate: '*',
      publicTemplate: ['view'],
      // Applies for consultations with the central hospital's experts (issue #20).
      consult: ['view', 'start', 'revoke', 'notifyExperts'],
    },
  },
  {
    key: 'senior',
    name: '上级审核医生',
    explain: '书写、审核、复核报告，远程诊断',
    dataScope: 'own',
    regionOrgCodes: ['HOSP_A', 'HOSP_B'],
    remoteOrgCodes: ['HOSP_A', 'HOSP_B'],
    grants: {
      registration: ['view', 'history', 'details'],
      image: ['view', 'compare'],
      report: ['view', 'write', 'verify', 'recheck', 'print', 'batchPrint', 'unlock', 'withdraw', 'recall', 'return', 'reportReturn', 'assign', 'operationRecord', 'image', 'details'],
      remote: '*',
      myReport: '*',
      reportAssign: '*',
      regionCenter: '*',
      privateTemplate: '*',
      publicTemplate: '*',
      // Reviews consultations of the central hospital and its subordinates, and manages the experts.
      consult: '*',
      expert: '*',
    },
  },
  {
    key: 'expert',
    name: '会诊专家',
    explain: '参加远程会诊',
    dataScope: 'own',
    grants: { consult: ['view', 'join'], expert: ['view'], report: ['view', 'image', 'details'], image: ['view'] },
  },
  {
    key: 'clinician',
    name: '临床医师',
    explain: '查看报告，确认本科室的危急值',
    dataScope: 'own',
    grants: { registration: ['view', 'details'], image: ['view'], report: ['view', 'image', 'details', 'crisisAcknowledge'] },
  },
  { key: 'auditor', name: '审计员', explain: '查看与导出本院的审计记录', dataScope: 'own', grants: { audit: ['view', 'export'] } },
];

export interface DemoUser {
  mobile: string;
  username: string;
  name: string;
  workNo: string;
  sex: 1 | 2;
  title: -1 | 1 | 2 | 3 | 4;
  /** [org code, role key, department code] per hospital, the first is the default. */
  memberships: Array<[string, string, string?]>;
  /** Common settings saved for the account (module → the fields that differ from config/defaults.json). */
  commonSetting?: Record<string, Record<string, unknown>>;
}

export const DEMO_USERS: DemoUser[] = [
  { mobile: '13800000001', username: 'regionadmin', name: '区域管理员', workNo: 'R0001', sex: 1, title: -1, memberships: [['REGION', 'admin']] },
  { mobile: '13800000002', username: 'clerka01', name: '登记员小周', workNo: 'A0002', sex: 2, title: -1, memberships: [['HOSP_A', 'clerk', 'FSK']] },
  { mobile: '13800000003', username: 'techa001', name: '技师小吴', workNo: 'A0003', sex: 1, title: -1, memberships: [['HOSP_A', 'technician', 'FSK']] },
  { mobile: '13800000004', username: 'doctora01', name: '陈医生', workNo: 'A0004', sex: 1, title: 1, memberships: [['HOSP_A', 'radiologist', 'FSK']] },
  { mobile: '13800000005', username: 'seniorc01', name: '林主任', workNo: 'C0005', sex: 2, title: 4, memberships: [['CENTRAL', 'senior', 'FSK']] },
  { mobile: '13800000006', username: 'expertc01', name: '郑教授', workNo: 'C0006', sex: 1, title: 4, memberships: [['CENTRAL', 'expert', 'NK']] },
  {
    mobile: '13800000007',
    username: 'doctorac7',
    name: '黄医生',
    workNo: 'C0007',
    sex: 2,
    title: 2,
    memberships: [
      ['HOSP_A', 'radiologist', 'FSK'],
      ['CENTRAL', 'radiologist', 'FSK'],
    ],
  },
  // The requesting department's side of a critical value (mock/reports.ts DEMO_CRISIS_DEPARTMENT).
  // Notices on, so the pop-up shows the critical value at login.
  {
    mobile: '13800000008',
    username: 'clinica08',
    name: '赵医生',
    workNo: 'A0008',
    sex: 2,
    title: 2,
    memberships: [['HOSP_A', 'clinician', 'NK']],
    commonSetting: { examNotice: { noticeOpen: true } },
  },
  // Reads the audit trail of hospital A only (its data scope), nothing else.
  { mobile: '13800000009', username: 'auditora09', name: '审计员小孙', workNo: 'A0009', sex: 2, title: -1, memberships: [['HOSP_A', 'auditor']] },
];

/** Departments every demo hospital has: [code, name, shortcut]. */
export const DEMO_DEPARTMENTS: Array<[string, string, string]> = [
  ['FSK', '放射科', 'FSK'],
  ['NK', '内科', 'NK'],
  ['WK', '外科', 'WK'],
  ['JZK', '急诊科', 'JZK'],
  ['TJZX', '体检中心', 'TJZX'],
];
