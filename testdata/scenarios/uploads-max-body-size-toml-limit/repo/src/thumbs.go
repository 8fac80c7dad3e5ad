package main

// thumbnail settings note 0
// thumbnail settings note 1
// thumbnail settings note 2
// thumbnail settings note 3
// thumbnail settings note 4
// thumbnail settings note 5
// thumbnail settings note 6
func thumb(img image.Image) {
	q := 85
	return encode(img, q)
}
