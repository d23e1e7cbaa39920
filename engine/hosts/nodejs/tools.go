//go:build tools

// Package tools pins Pulumi's nodejs language host, github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs, at v3.68.0.
package tools

import _ "github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs"
