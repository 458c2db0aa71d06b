/**
 * The common settings a user starts from (config/settings.ts), as a function:
 * - notices on for whoever writes or reviews, for the modules they do it in
 * - off, with the file's defaults, for everyone else (a clerk, a clinician)
 * - what the user saved wins, key by key; other modules keep their defaults
 */
import defaults from '../../config/defaults.json';
import { commonSettings, settingDefaults } from '../../config/settings';

describe('common setting defaults follow the rights', () => {
  test('notices on for writers and reviewers, in their modules', () => {
    expect(settingDefaults({ report: ['view', 'write'] }).examNotice).toMatchObject({ noticeOpen: true, modelList: ['report'] });
    expect(settingDefaults({ report: ['view', 'verify'], remote: ['view', 'write'] }).examNotice).toMatchObject({ noticeOpen: true, modelList: ['report', 'remote'] });
    expect(settingDefaults({ remote: ['verify'] }).examNotice).toMatchObject({ noticeOpen: true, modelList: ['remote'] });
  });

  test('off for everyone else, exactly the file', () => {
    expect(settingDefaults({ registration: ['view', 'add'], report: ['view', 'crisisAcknowledge'] })).toEqual(defaults.commonSetting);
    expect(settingDefaults(null)).toEqual(defaults.commonSetting);
    expect(defaults.commonSetting.examNotice.noticeOpen).toBe(false);
  });

  test('saved values win key by key; the defaults are not changed by a call', () => {
    const mine = commonSettings({ report: ['write'] }, { examNotice: { noticeOpen: false, interval: 2 } });
    expect(mine.examNotice).toEqual({ ...defaults.commonSetting.examNotice, noticeOpen: false, modelList: ['report'], interval: 2 });
    expect(mine.viewConfig).toEqual(defaults.commonSetting.viewConfig);
    expect(commonSettings({ report: ['write'] }, null).examNotice.noticeOpen).toBe(true);
    expect(defaults.commonSetting.examNotice.noticeOpen).toBe(false);
  });
});
