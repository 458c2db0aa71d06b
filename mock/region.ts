/**
 * The demo region: one regional image centre, one central hospital and the
 * subordinate hospitals under it. Codes are stable; other generators (users,
 * devices, exams) refer to organisations by code.
 */
export interface DemoOrg {
  code: string;
  name: string;
  kind: 'region' | 'central' | 'subordinate';
  parentCode?: string;
  contactPerson: string;
  contactPhone: string;
  uploaderFlag: boolean;
}

export const DEMO_ORGS: DemoOrg[] = [
  { code: 'REGION', name: '区域影像中心', kind: 'region', contactPerson: '王主任', contactPhone: '13900000001', uploaderFlag: false },
  { code: 'CENTRAL', name: '县中心医院', kind: 'central', parentCode: 'REGION', contactPerson: '李主任', contactPhone: '13900000002', uploaderFlag: true },
  { code: 'HOSP_A', name: '第一乡镇卫生院', kind: 'subordinate', parentCode: 'CENTRAL', contactPerson: '张院长', contactPhone: '13900000003', uploaderFlag: true },
  { code: 'HOSP_B', name: '第二乡镇卫生院', kind: 'subordinate', parentCode: 'CENTRAL', contactPerson: '赵院长', contactPhone: '13900000004', uploaderFlag: true },
];
