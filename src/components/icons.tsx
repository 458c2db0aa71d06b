/**
 * The one icon registry: names used in config/routes.json (and the spec's sidebar
 * icon list) mapped to @ant-design/icons components. Add a name here, never import
 * an icon for the menu or navbar elsewhere.
 */
import {
  AimOutlined,
  AlertOutlined,
  ApartmentOutlined,
  AuditOutlined,
  BankOutlined,
  BarChartOutlined,
  BellOutlined,
  BookOutlined,
  BugOutlined,
  BulbFilled,
  BulbOutlined,
  CalendarOutlined,
  CloudServerOutlined,
  ClusterOutlined,
  DashboardOutlined,
  DesktopOutlined,
  EditOutlined,
  ExperimentOutlined,
  ExportOutlined,
  EyeOutlined,
  FileTextOutlined,
  FullscreenExitOutlined,
  FullscreenOutlined,
  HistoryOutlined,
  IdcardOutlined,
  KeyOutlined,
  LinkOutlined,
  LockOutlined,
  LogoutOutlined,
  MessageOutlined,
  MobileOutlined,
  MedicineBoxOutlined,
  PictureOutlined,
  PrinterOutlined,
  ProfileOutlined,
  QuestionOutlined,
  ReadOutlined,
  SafetyOutlined,
  SafetyCertificateOutlined,
  SettingOutlined,
  ShareAltOutlined,
  TranslationOutlined,
  UnorderedListOutlined,
  UserOutlined,
  VideoCameraOutlined,
} from '@ant-design/icons';
import React from 'react';

type IconComponent = React.ComponentType<{ className?: string; style?: React.CSSProperties }>;

/** Spec section 2: sidebar icons, then the other named icons, then our additions. */
export const iconRegistry: Readonly<Record<string, IconComponent>> = Object.freeze({
  knowledgebase: BookOutlined,
  audit: AuditOutlined,
  target: AimOutlined,
  stat: BarChartOutlined,
  report: FileTextOutlined,
  edit: EditOutlined,
  role: SafetyCertificateOutlined,
  hospital: BankOutlined,
  user: UserOutlined,
  exam: ProfileOutlined,
  remote: CloudServerOutlined,
  imageRecord: PictureOutlined,
  regionOrg: ClusterOutlined,
  teleConsultionPlatform: VideoCameraOutlined,

  print: PrinterOutlined,
  lock: LockOutlined,
  password: KeyOutlined,
  eye: EyeOutlined,
  language: TranslationOutlined,
  logo: MedicineBoxOutlined,

  dashboard: DashboardOutlined,
  schedule: CalendarOutlined,
  link: LinkOutlined,
  export: ExportOutlined,
  expert: IdcardOutlined,
  log: HistoryOutlined,
  department: ApartmentOutlined,
  device: DesktopOutlined,
  examItem: UnorderedListOutlined,
  organ: ExperimentOutlined,
  dictionary: ReadOutlined,
  setting: SettingOutlined,
  share: ShareAltOutlined,
  bug: BugOutlined,
  crisis: AlertOutlined,

  // Navbar.
  fullscreen: FullscreenOutlined,
  fullscreenExit: FullscreenExitOutlined,
  themeLight: BulbOutlined,
  themeDark: BulbFilled,
  notice: BellOutlined,

  // Identity: navbar menu and login form.
  logout: LogoutOutlined,
  mobile: MobileOutlined,
  smsCode: MessageOutlined,
  captcha: SafetyOutlined,
});

export function hasIcon(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(iconRegistry, name);
}

/** Renders a registered icon; an unknown name renders a "?" so the gap is visible. */
export function renderIcon(name: string | undefined): React.ReactNode {
  if (!name) return null;
  const Icon = hasIcon(name) ? iconRegistry[name] : QuestionOutlined;
  return <Icon />;
}
