// A Go program over the SDK `pulumi package add ./node_modules/agent-user-kit`
// generates, the kit made by its plugin: it exports each of the component's
// outputs under its own name, as the repository's stack program does.
package main

import (
	"example.com/pulumi-agent-user-kit/sdk/go/agentuserkit"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		conf := config.New(ctx, "")
		var names []string
		conf.RequireObject("agents", &names)
		agents := agentuserkit.AgentArray{}
		for _, name := range names {
			agents = append(agents, agentuserkit.AgentArgs{Name: pulumi.String(name), UserName: pulumi.String(name + "-agent")})
		}
		kit, err := agentuserkit.NewAgentUserKit(ctx, "kit", &agentuserkit.AgentUserKitArgs{
			BlueprintName: pulumi.String("Go agents"),
			Sponsors:      pulumi.StringArray{pulumi.String(conf.Require("sponsor"))},
			UserDomain:    pulumi.String(conf.Require("userDomain")),
			GraphUrl:      pulumi.String(conf.Require("url")),
			AuthorityUrl:  pulumi.String(conf.Require("url")),
			Agents:        agents,
			Credential:    agentuserkit.CredentialArgs{Mode: agentuserkit.CredentialModeSecret},
		})
		if err != nil {
			return err
		}
		ctx.Export("tenantId", kit.TenantId)
		ctx.Export("authorityUrl", kit.AuthorityUrl)
		ctx.Export("graphUrl", kit.GraphUrl)
		ctx.Export("resourceUrl", kit.ResourceUrl)
		ctx.Export("tokenExchangeAudience", kit.TokenExchangeAudience)
		ctx.Export("blueprintAppId", kit.BlueprintAppId)
		ctx.Export("blueprintObjectId", kit.BlueprintObjectId)
		ctx.Export("blueprintPrincipalId", kit.BlueprintPrincipalId)
		ctx.Export("blueprintClientSecret", kit.BlueprintClientSecret)
		ctx.Export("agentIdentityId", kit.AgentIdentityId)
		ctx.Export("agentUserId", kit.AgentUserId)
		ctx.Export("agentUserPrincipalName", kit.AgentUserPrincipalName)
		ctx.Export("grantId", kit.GrantId)
		ctx.Export("grantScopes", kit.GrantScopes)
		ctx.Export("agents", kit.Agents)
		return nil
	})
}
