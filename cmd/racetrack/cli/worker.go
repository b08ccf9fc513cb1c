package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/racetrack-sim/racetrack/internal/cluster"
)

func workerCmd(ctx context.Context, e *Env, args []string) int {
	fs := e.Flags("worker", "-nats URL [-workers N] [-nats-user NAME] [-nats-password-file FILE] [-nats-ca FILE]",
		"Joins the NATS cluster at URL (a server started with -nats-listen, or the cluster it uses\n"+
			"with -nats) and runs its distributed searches until interrupted. The password is the\n"+
			"worker password the server printed (or was given); it is read from -nats-password-file\n"+
			"or $"+cluster.EnvPassword+", never from the command line.")
	url := fs.String("nats", "", "the NATS cluster's URL(s), comma-separated (required; tls://HOST:PORT for a server with a certificate)")
	workers := fs.Int("workers", 0, "the workers to run, each on its own connection (0: one per CPU)")
	user := fs.String("nats-user", cluster.WorkerUser, "the NATS user to connect as ($"+cluster.EnvUser+")")
	pwFile := fs.String("nats-password-file", "", "a file holding the NATS password (default: $"+cluster.EnvPassword+")")
	ca := fs.String("nats-ca", "", "a PEM file of the authority that signed the NATS server's certificate (default: $"+cluster.EnvCA+", else the system's)")
	if code := e.Parse(fs, args); code >= 0 {
		return code
	}
	if *url == "" {
		fs.Usage()
		return ExitUsage
	}
	if *workers < 0 {
		fmt.Fprintf(e.Stderr, "%s worker: -workers cannot be negative\n", e.Name)
		return ExitUsage
	}
	auth := cluster.AuthFromEnv(cluster.WorkerUser)
	if os.Getenv(cluster.EnvUser) == "" {
		auth.User = *user
	}
	if *ca != "" {
		auth.CAFile = *ca
	}
	if *pwFile != "" {
		b, err := os.ReadFile(*pwFile)
		if err != nil {
			return e.Fail("worker", ExitUsage, fmt.Errorf("-nats-password-file: %w", err))
		}
		auth.Password = strings.TrimSpace(string(b))
	}
	if auth.Password == "" {
		return e.Fail("worker", ExitUsage, fmt.Errorf("no NATS password: give the worker password the server printed in $%s or -nats-password-file", cluster.EnvPassword))
	}
	if err := cluster.RunWorkers(ctx, e.reg, *url, auth, *workers, cluster.Options{}); err != nil {
		return e.Fail("worker", ExitFailure, err)
	}
	return ExitHolds
}
