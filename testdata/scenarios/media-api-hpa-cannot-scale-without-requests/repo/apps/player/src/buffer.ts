export const BUFFER_SECONDS = 12;
