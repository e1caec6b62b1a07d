# syntax=docker/dockerfile:1
# The kreconcile operator image: the packed npm package with its production dependencies only,
# on the Node the repository pins (devDependency `node`; test/package/image.test.ts keeps them equal).
#   docker build -t kreconcile:0.1.0 .
#   kreconcile deploy --image kreconcile:0.1.0 | kubectl apply -f -     (docs/install.md)
# Pin the base by digest for releases: docker buildx imagetools inspect node:24.21.0-slim, then
#   docker build --build-arg NODE_IMAGE=node:24.21.0-slim@sha256:<digest> -t … .
ARG NODE_IMAGE=node:24.21.0-slim

# --- build: compile and pack exactly what `npm pack` publishes --------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No scripts: prepare would build before the sources are here, the `node` devDependency would
# download a second Node (the base image is that Node), and no production dependency has one.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json README.md ./
COPY tools/package tools/package
COPY core core
COPY adapters adapters
COPY app app
COPY docs docs
COPY examples examples
COPY schemas schemas
# What prepack runs (a clean dist/ from tsc), then the pack itself.
RUN node tools/package/build.mjs && npm pack --ignore-scripts --pack-destination /tmp

# --- install: the tarball's files plus production dependencies at the locked versions ----------
FROM ${NODE_IMAGE} AS install
WORKDIR /opt/kreconcile
COPY --from=build /tmp/kreconcile-*.tgz /tmp/
COPY package-lock.json /tmp/package-lock.json
RUN tar -xzf /tmp/kreconcile-*.tgz --strip-components=1 \
 && cp /tmp/package-lock.json . \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm package-lock.json /tmp/kreconcile-*.tgz /tmp/package-lock.json

# --- runtime: Node and the install, nothing else ------------------------------------------------
FROM ${NODE_IMAGE}
# The package managers are not needed at run time: less to patch, less to exploit.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*
# Owned by root, read-only to the operator's user: the operator writes nothing (logs go to
# stderr), so the root filesystem can be mounted read-only (the Deployment does).
COPY --from=install /opt/kreconcile /opt/kreconcile
ENV NODE_ENV=production
# Numeric, so that Kubernetes can enforce runAsNonRoot.
USER 65532:65532
WORKDIR /tmp
EXPOSE 8080
ENTRYPOINT ["node", "/opt/kreconcile/dist/app/cli/kreconcile.js"]
CMD ["run", "--listen", ":8080"]
