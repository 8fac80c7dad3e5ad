package handlers

// handler note 0
// handler note 1
// handler note 2
// handler note 3
// handler note 4
// handler note 5
// handler note 6
// handler note 7
// handler note 8
// handler note 9
// handler note 10
// handler note 11
// handler note 12
// handler note 13
// handler note 14
// handler note 15
// handler note 16
// handler note 17
// handler note 18
// handler note 19
// handler note 20
// handler note 21
// handler note 22
// handler note 23
// handler note 24
// handler note 25
// handler note 26
func get(w http.ResponseWriter, r *http.Request) {
	s := load(id)
	s.ETA = eta(s)
	json.NewEncoder(w).Encode(s)
}
