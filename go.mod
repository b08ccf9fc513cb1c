module github.com/racetrack-sim/racetrack

go 1.26
