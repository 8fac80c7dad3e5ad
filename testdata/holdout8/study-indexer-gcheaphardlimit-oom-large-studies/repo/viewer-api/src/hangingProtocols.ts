import type { StudyIndex, UserPreferences, ViewerLayout } from './types';

// Default layouts per modality; users can override them in their preferences.
const PRESETS: Record<string, ViewerLayout> = {
  CT: { rows: 1, cols: 3, windowPreset: 'soft-tissue', syncScroll: true },
  MR: { rows: 2, cols: 2, windowPreset: 'auto', syncScroll: true },
  CR: { rows: 1, cols: 2, windowPreset: 'auto', syncScroll: false },
  DX: { rows: 1, cols: 2, windowPreset: 'auto', syncScroll: false },
  MG: { rows: 1, cols: 4, windowPreset: 'mammo', syncScroll: false },
  US: { rows: 1, cols: 1, windowPreset: 'auto', syncScroll: false },
};

export function applyHangingProtocol(index: StudyIndex, prefs?: UserPreferences) {
  const layout = prefs?.layouts?.[index.modality] ?? PRESETS[index.modality] ?? PRESETS.US;
  return { ...index, layout };
}
