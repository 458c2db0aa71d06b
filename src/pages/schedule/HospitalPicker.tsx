/**
 * The hospital a scheduling screen works on: the user's current hospital first, any
 * other hospital of the data scope on choice (the org options are already cut to it).
 */
import { Select } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { resourceApi } from '../../schema/resource';
import type { Option } from '../../shared/schema/types';
import { useSession } from '../../session/store';

export function useHospital(): [number | undefined, (id: number) => void] {
  const current = useSession().user?.hospitalId ?? undefined;
  const [hospitalId, setHospitalId] = useState<number | undefined>(current);
  useEffect(() => {
    if (hospitalId === undefined && current !== undefined) setHospitalId(current);
  }, [current, hospitalId]);
  return [hospitalId, setHospitalId];
}

export default function HospitalPicker({ value, onChange }: { value?: number; onChange: (id: number) => void }) {
  const { t } = useTranslation();
  const [options, setOptions] = useState<Option[]>([]);
  useEffect(() => {
    let live = true;
    resourceApi('org')
      .options()
      .then((o) => live && setOptions(o))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return (
    <Select
      data-testid="schedule-hospital"
      style={{ minWidth: 200 }}
      placeholder={t('entity.schedule.hospital')}
      value={value}
      onChange={onChange}
      options={options.map((o) => ({ value: Number(o.value), label: o.label }))}
      showSearch
      optionFilterProp="label"
    />
  );
}
