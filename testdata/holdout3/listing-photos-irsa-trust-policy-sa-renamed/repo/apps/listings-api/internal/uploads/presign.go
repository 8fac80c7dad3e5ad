package uploads

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

const originals = "nestfinder-listing-photos-originals"

// PresignPhotoUpload returns a URL the browser PUTs the original to. The photo
// is enqueued for processing when S3 notifies us about the new object.
func (h *Handler) PresignPhotoUpload(ctx context.Context, listingID, photoID, contentType string, virtualTour bool) (string, error) {
	key := fmt.Sprintf("%s/%s", listingID, photoID)
	if virtualTour {
		key = fmt.Sprintf("%s/tour/%s", listingID, photoID)
	}
	req, err := h.presign.PresignPutObject(ctx, &s3.PutObjectInput{
		Bucket:      aws.String(originals),
		Key:         aws.String(key),
		ContentType: aws.String(contentType),
	}, s3.WithPresignExpires(15*time.Minute))
	if err != nil {
		return "", fmt.Errorf("presign %s: %w", key, err)
	}
	return req.URL, nil
}
