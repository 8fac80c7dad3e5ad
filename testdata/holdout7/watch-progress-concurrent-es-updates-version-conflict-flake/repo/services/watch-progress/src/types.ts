export interface ProgressEvent {
  profileId: string;
  titleId: string;
  positionS: number;
  durationS: number;
  device: string;
}
