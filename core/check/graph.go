package check

import "fmt"

func newGraphEngine(x *Explorer) (engine, error) {
	return nil, fmt.Errorf("%w: %s is not implemented yet", ErrUnsupported, x.cfg.Strategy)
}
