/**
 * A picture the API keeps beside a record (a user's signature, an expert's avatar), for a view's virtual
 * field: props `path` (GET shows it; `{id}` and other placeholders come from the
 * form's values), `purpose` (the file service's purpose it is uploaded as, owned by
 * the record's id: /api/file/v1, whose policy gives the limits: types, size, pixels)
 * and `presentWhen` (the record field saying there is one, so no call asks for a
 * missing picture). A chosen file is checked here as the server will (../imageCheck)
 * and uploaded at once with its progress; the server's refusal is shown under the
 * control. Until the record has an id there is nothing to attach a picture to, and
 * the field says so. Read-pretty shows the picture. The field holds no value.
 */
import { UploadOutlined } from '@ant-design/icons';
import { PreviewText } from '@formily/antd-v5';
import { connect, mapProps, mapReadPretty, observer, useForm } from '@formily/react';
import { App, Button, Progress, Spin, Typography, Upload, theme } from 'antd';
import { useEffect, useState } from 'react';
import { filePolicy, uploadFile, type FilePurpose } from '../../services/files';
import { request, RequestError } from '../../services/request';
import { exactPixels, imageProblem, isImageLimits, sizeText, typeNames, type ImageLimits, type ImageProblem } from '../imageCheck';
import { fillPath } from '../../shared/schema/pathTemplate';
import { useTranslate } from '../useTranslate';

export interface ImageUploadProps extends Partial<ImageLimits> {
  path?: string;
  /** The file service purpose the picture is uploaded as (its owner: the record's id). */
  purpose?: FilePurpose;
  presentWhen?: string;
  disabled?: boolean;
  /** The field's title (mapped from the field). */
  alt?: string;
}

/** The record's picture path, and whether the record says it has one. */
function useRecordPicture(props: ImageUploadProps): { path?: string; present: boolean; setPresent(): void } {
  const form = useForm();
  const values = form.values as Record<string, unknown>;
  const path = props.path ? fillPath(props.path, values) : undefined;
  const present = Boolean(path) && (props.presentWhen ? Boolean(values[props.presentWhen]) : true);
  return { path, present, setPresent: () => props.presentWhen && form.setValuesIn(props.presentWhen, true) };
}

/** The picture at `path` as an object URL (fetched with the API's headers), released when done. */
function usePictureUrl(path: string | undefined, present: boolean, version: number) {
  const [state, setState] = useState<{ url?: string; loading: boolean; failed: boolean }>({ loading: false, failed: false });
  useEffect(() => {
    if (!path || !present) {
      setState({ loading: false, failed: false });
      return undefined;
    }
    let live = true;
    let url: string | undefined;
    setState((s) => ({ ...s, loading: true, failed: false }));
    request<Blob>(path, { responseType: 'blob', quiet: true })
      .then((blob) => {
        if (!live) return;
        url = URL.createObjectURL(blob);
        setState({ url, loading: false, failed: false });
      })
      .catch(() => live && setState({ loading: false, failed: true }));
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [path, present, version]);
  return state;
}

/** The limits: the purpose's policy from the server (the one source), else the view's props. */
function useLimits(props: ImageUploadProps): Partial<ImageLimits> {
  const [policy, setPolicy] = useState<Partial<ImageLimits>>();
  useEffect(() => {
    if (!props.purpose) return undefined;
    let live = true;
    filePolicy(props.purpose)
      .then((p) => live && setPolicy({ types: p.types, maxBytes: p.maxBytes, width: p.pixels?.width, height: p.pixels?.height }))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [props.purpose]);
  return props.purpose ? policy ?? {} : props;
}

/** Pixel size of a picture file, decoded by the browser; rejects when it is not one. */
function readPixels(file: Blob): Promise<{ width: number; height: number }> {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(file);
    const img = new Image();
    img.onload = () => {
      URL.revokeObjectURL(url);
      resolve({ width: img.naturalWidth, height: img.naturalHeight });
    };
    img.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error('not a picture'));
    };
    img.src = url;
  });
}

/** The frame of a picture of any size (an avatar): the picture fits in it. */
const ANY_SIZE_FRAME = 128;

/** The picture in a frame of the expected size (or what stands in for it). */
function Frame({ limits, url, loading, failed, alt }: { limits: ImageLimits; url?: string; loading: boolean; failed: boolean; alt: string }) {
  const { t } = useTranslate();
  const { token } = theme.useToken();
  const width = limits.width ?? ANY_SIZE_FRAME;
  const height = limits.height ?? ANY_SIZE_FRAME;
  return (
    <div
      style={{
        width: width + 2,
        height: height + 2,
        flex: 'none',
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        border: `1px ${url ? 'solid' : 'dashed'} ${token.colorBorder}`,
        borderRadius: token.borderRadiusSM,
        background: token.colorFillQuaternary,
      }}
    >
      {loading ? (
        <Spin size="small" />
      ) : url ? (
        <img src={url} alt={alt} width={width} height={height} data-testid="image-upload-picture" style={{ display: 'block', objectFit: 'contain' }} />
      ) : (
        <Typography.Text type={failed ? 'danger' : 'secondary'} style={{ padding: 8, textAlign: 'center' }}>
          {t(failed ? 'entity.upload.loadFailed' : 'entity.upload.none')}
        </Typography.Text>
      )}
    </div>
  );
}

const ImageUploadInput = observer((props: ImageUploadProps) => {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const { path, present, setPresent } = useRecordPicture(props);
  const [version, setVersion] = useState(0);
  const picture = usePictureUrl(path, present, version);
  const [busy, setBusy] = useState(false);
  const [percent, setPercent] = useState(0);
  const [error, setError] = useState<string>();
  const form = useForm();
  const limits = useLimits(props);
  if (!isImageLimits(limits)) return null;
  const types = typeNames(limits.types);
  const size = sizeText(limits.maxBytes);

  if (!path)
    return (
      <div data-testid="image-upload" data-state="unsaved">
        <Typography.Text type="secondary">{t('entity.upload.afterSave')}</Typography.Text>
      </div>
    );

  const problemText = (p: ImageProblem) =>
    t(`entity.upload.${p.key}`, { types, size, width: limits.width, height: limits.height, ...('actualWidth' in p ? p : {}) });

  const pick = async (file: File) => {
    setError(undefined);
    let problem = imageProblem({ type: file.type, bytes: file.size }, limits);
    if (!problem && exactPixels(limits)) {
      try {
        problem = imageProblem({ type: file.type, bytes: file.size, ...(await readPixels(file)) }, limits);
      } catch {
        setError(t('entity.upload.unreadable'));
        return;
      }
    }
    if (problem) {
      setError(problemText(problem));
      return;
    }
    setBusy(true);
    setPercent(0);
    try {
      const ownerId = Number((form.values as Record<string, unknown>).id);
      await uploadFile(file, { purpose: props.purpose!, ownerId, name: file.name }, { onProgress: (sent, total) => setPercent(total ? Math.round((sent / total) * 100) : 100) });
      setPresent();
      setVersion((v) => v + 1);
      message.success(t('entity.upload.uploaded'));
    } catch (e) {
      // UCENTER703 / UCENTER704 / UAA421 / FILE002: the server's own words, next to the control.
      setError(e instanceof RequestError ? e.message : t('error.common'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div data-testid="image-upload" data-state={present ? 'present' : 'empty'} style={{ display: 'flex', gap: 16, alignItems: 'flex-start', flexWrap: 'wrap' }}>
      <Frame limits={limits} {...picture} alt={props.alt ?? ''} />
      <div style={{ display: 'flex', flexDirection: 'column', gap: 6, minWidth: 200, flex: 1 }}>
        <div>
          <Upload
            accept={limits.types.join(',')}
            showUploadList={false}
            disabled={props.disabled || busy}
            beforeUpload={(file) => {
              void pick(file);
              return Upload.LIST_IGNORE;
            }}
          >
            <Button icon={<UploadOutlined />} loading={busy} disabled={props.disabled} data-testid="image-upload-choose">
              {t(present ? 'entity.upload.replace' : 'entity.upload.choose')}
            </Button>
          </Upload>
        </div>
        {busy && <Progress percent={percent} size="small" data-testid="image-upload-progress" />}
        <Typography.Text type="secondary">{t(exactPixels(limits) ? 'entity.upload.hint' : 'entity.upload.hintAnySize', { types, size, width: limits.width, height: limits.height })}</Typography.Text>
        {error && (
          <Typography.Text type="danger" data-testid="image-upload-error">
            {error}
          </Typography.Text>
        )}
      </div>
    </div>
  );
});

const ImageUploadPreview = observer((props: ImageUploadProps) => {
  const { path, present } = useRecordPicture(props);
  const picture = usePictureUrl(path, present, 0);
  const limits = useLimits(props);
  if (!isImageLimits(limits) || !present) return <PreviewText.Input value={undefined} />;
  return (
    <div data-testid="image-upload" data-state="present">
      <Frame limits={limits} {...picture} alt={props.alt ?? ''} />
    </div>
  );
});

export const ImageUpload = connect(
  ImageUploadInput,
  mapReadPretty(ImageUploadPreview),
  // Outermost, so both modes get it: the field holds no value (the picture lives at its own path).
  mapProps((_props: ImageUploadProps, field) => ({ value: undefined, onChange: undefined, alt: String(field?.title ?? '') })),
);

export default ImageUpload;
