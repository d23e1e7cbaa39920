// Command pulumi-language-nodejs is the language host the engine starts for a
// `runtime: nodejs` project. Pulumi's own host (module
// github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3) is not served
// by the Go module proxy this project can reach, so this one does the part a
// `pulumi up` needs: it runs the program through @pulumi/pulumi's own
// cmd/run with the engine's monitor, config and secret keys, and reports its
// exit. Dependencies are never installed here (npm ci does that), and the
// program declares its plugins by registering resources.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	pbempty "google.golang.org/protobuf/types/known/emptypb"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// exitAfterReportedError is cmd/run's exit code for "the error is already shown to
// the user": the engine then bails without printing it a second time.
const exitAfterReportedError = 32

func main() {
	// The engine's address is the last argument; flags before it (-v, --tracing,
	// --logtostderr) only tune logging.
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: pulumi-language-nodejs [flags] ENGINE_ADDRESS")
		os.Exit(2)
	}
	host := &nodeHost{engine: os.Args[len(os.Args)-1]}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: cannot listen: %v\n", err)
		os.Exit(1)
	}
	// The engine reads the port from the first line of stdout.
	fmt.Println(handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs: %v\n", err)
		os.Exit(1)
	}
}

type nodeHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engine string
}

func (h *nodeHost) Handshake(
	_ context.Context, req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	if req.GetEngineAddress() != "" {
		h.engine = req.GetEngineAddress()
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *nodeHost) GetPluginInfo(context.Context, *pbempty.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

// Plugins are not pre-installed from here: with automatic plugin acquisition off,
// each provider must already be on PATH or in PULUMI_HOME when the program
// registers its first resource.
func (h *nodeHost) GetRequiredPackages(
	context.Context, *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

func (h *nodeHost) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *nodeHost) InstallDependencies(
	*pulumirpc.InstallDependenciesRequest, grpc.ServerStreamingServer[pulumirpc.InstallDependenciesResponse],
) error {
	return status.Error(codes.Unimplemented, "install the program's dependencies with npm ci")
}

func (h *nodeHost) About(context.Context, *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, errors.New("node is not on PATH")
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("node --version: %w", err)
	}
	return &pulumirpc.AboutResponse{Executable: node, Version: string(out)}, nil
}

func (h *nodeHost) GetProgramDependencies(
	context.Context, *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	return &pulumirpc.GetProgramDependenciesResponse{}, nil
}

func (h *nodeHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	if info == nil {
		return nil, status.Error(codes.InvalidArgument, "run request carries no program info")
	}
	runner, err := findRunner(info.GetProgramDirectory())
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	config, err := json.Marshal(req.GetConfig())
	if err != nil {
		return nil, err
	}
	secretKeys, err := json.Marshal(req.GetConfigSecretKeys())
	if err != nil {
		return nil, err
	}

	args := []string{
		runner,
		"--monitor", req.GetMonitorAddress(),
		"--engine", h.engine,
		"--organization", req.GetOrganization(),
		"--project", req.GetProject(),
		"--stack", req.GetStack(),
		"--pwd", req.GetPwd(),
		"--root-directory", info.GetRootDirectory(),
		"--parallel", strconv.Itoa(int(req.GetParallel())),
	}
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	// "." is cmd/run's "the package in --pwd"; any other entry point is a file or directory of the program.
	program := "."
	if info.GetEntryPoint() != "." {
		program = filepath.Join(info.GetProgramDirectory(), info.GetEntryPoint())
	}
	args = append(args, program)
	args = append(args, req.GetArgs()...)

	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = req.GetPwd()
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	cmd.Env = append(os.Environ(),
		"PULUMI_CONFIG="+string(config),
		"PULUMI_CONFIG_SECRET_KEYS="+string(secretKeys),
	)
	opts := info.GetOptions().AsMap()
	if ts, ok := opts["typescript"].(bool); ok {
		cmd.Env = append(cmd.Env, "PULUMI_NODEJS_TYPESCRIPT="+strconv.FormatBool(ts))
	}
	if tsconfig, ok := opts["tsconfig"].(string); ok && tsconfig != "" {
		cmd.Env = append(cmd.Env, "PULUMI_NODEJS_TSCONFIG_PATH="+tsconfig)
	}

	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return &pulumirpc.RunResponse{}, nil
	case errors.As(err, &exit) && exit.ExitCode() == exitAfterReportedError:
		return &pulumirpc.RunResponse{Bail: true}, nil
	case errors.As(err, &exit):
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("the Node.js program exited with code %d", exit.ExitCode())}, nil
	default:
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("cannot start node: %v (is node on PATH?)", err)}, nil
	}
}

// findRunner is @pulumi/pulumi's cmd/run as the program resolves it: the nearest
// node_modules at or above the program's directory.
func findRunner(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		candidate := filepath.Join(d, "node_modules", "@pulumi", "pulumi", "cmd", "run", "index.js")
		if _, err := os.Stat(candidate); err == nil {
			return candidate, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("@pulumi/pulumi is not installed at or above %s: run npm ci", dir)
		}
	}
}
