export const config = {
  textractRegion: "eu-west-1",
  minConfidence: 0.82,
};
