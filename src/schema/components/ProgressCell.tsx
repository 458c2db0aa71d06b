/**
 * A list cell for a view's `progress` hint (the exam list's regional send): the state's
 * label over a bar of done of total, the failure reason under it. Plain presentation:
 * the row carries everything.
 */
import { Progress, Tooltip, Typography } from 'antd';
import type { ProgressHint } from '../../shared/schema/types';

export interface ProgressCellProps {
  label: string;
  status?: ProgressHint['status'][string];
  done: number;
  total: number;
  error?: string;
}

export function ProgressCell({ label, status, done, total, error }: ProgressCellProps) {
  const percent = total > 0 ? Math.floor((done * 100) / total) : 0;
  return (
    <div data-testid="progress-cell" style={{ minWidth: 120 }}>
      <Typography.Text type={status === 'exception' ? 'danger' : undefined}>{label}</Typography.Text>
      {status && (
        <Progress size="small" percent={percent} status={status === 'active' ? 'active' : status} format={() => `${done}/${total}`} />
      )}
      {error && (
        <Tooltip title={error}>
          <Typography.Text type="danger" ellipsis style={{ maxWidth: 160, display: 'block', fontSize: 12 }}>
            {error}
          </Typography.Text>
        </Tooltip>
      )}
    </div>
  );
}
