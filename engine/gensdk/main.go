// Command gensdk writes a Pulumi package's SDK for one language from its schema, with Pulumi's own
// code generators (the codegen packages of github.com/pulumi/pulumi/pkg/v3, the module the CLI is
// built from). It stands in for the SDK step of `pulumi package add`, which asks the language host
// to generate the SDK: the Node.js, Python and Go hosts that the Go module proxy serves predate that
// call. Like `pulumi package add`, it generates a local SDK of a package that supports packing.
//
//	gensdk LANGUAGE SCHEMA.json OUT
//
// LANGUAGE is nodejs, python or go; OUT is created and must not exist yet.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const tool = "agent-user-kit gensdk"

// noReferences refuses every package reference: the kit's schema names no other package.
type noReferences struct{}

func (noReferences) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %q, and gensdk loads no other package", name)
}

func (noReferences) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return noReferences{}.LoadPackage(d.Name, nil)
}

func (noReferences) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, fmt.Errorf("the schema refers to package %q, and gensdk loads no other package", name)
}

func (noReferences) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return noReferences{}.LoadPackageReference(d.Name, nil)
}

func generate(language string, pkg *schema.Package) (map[string][]byte, error) {
	switch language {
	case "nodejs":
		return nodejs.GeneratePackage(tool, pkg, nil, nil, true, noReferences{})
	case "python":
		return python.GeneratePackage(tool, pkg, nil, noReferences{})
	case "go":
		return gogen.GeneratePackage(tool, pkg, nil)
	}
	return nil, fmt.Errorf("unknown language %q: nodejs, python or go", language)
}

func run(language, schemaFile, out string) error {
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s exists already: gensdk writes a new folder", out)
	}
	text, err := os.ReadFile(schemaFile)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(text, &spec); err != nil {
		return fmt.Errorf("%s is not a package schema: %w", schemaFile, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noReferences{}, schema.ValidationOptions{})
	if err != nil {
		return err
	}
	if diags.HasErrors() {
		return fmt.Errorf("%s does not bind: %w", schemaFile, diags)
	}
	// As `pulumi package add` sets it for a local package: a versioned, packable SDK (Go's with its go.mod).
	pkg.SupportPack = true
	files, err := generate(language, pkg)
	if err != nil {
		return err
	}
	for name, data := range files {
		file := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: gensdk nodejs|python|go SCHEMA.json OUT")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintf(os.Stderr, "gensdk: %v\n", err)
		os.Exit(1)
	}
}
