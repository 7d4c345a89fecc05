"""pytorch/examples' graph programs in miniature. GCN: a normalised sparse adjacency matrix
(torch.sparse_coo_tensor, coalesce, torch.sparse.mm), GraphConv layers with xavier_uniform_
weights, dropout, log_softmax, Adam with weight_decay, and accuracy on train / val / test
masks. GAT: a multi-head graph attention layer (attention scores from a shared vector, LeakyReLU,
masking non-edges with torch.where, softmax, ELU, heads concatenated or averaged). The graph
is a random two-community graph made under a fixed seed instead of the Cora download."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_graph(num_nodes=40, num_features=12, num_classes=3):
    labels = torch.randint(0, num_classes, (num_nodes,))
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    prob = torch.where(same, torch.tensor(0.3), torch.tensor(0.03))
    upper = torch.triu(torch.rand(num_nodes, num_nodes) < prob, diagonal=1)
    adj = (upper | upper.t()).float()
    centers = torch.randn(num_classes, num_features)
    features = centers[labels] + 0.8 * torch.randn(num_nodes, num_features)
    return adj, features, labels


def normalize_adjacency(adj):
    """D^-1/2 (A + I) D^-1/2 as a sparse COO tensor."""
    adj = adj + torch.eye(adj.size(0))
    degree = adj.sum(1)
    d_inv_sqrt = degree.pow(-0.5)
    d_inv_sqrt[torch.isinf(d_inv_sqrt)] = 0.0
    dense = d_inv_sqrt.view(-1, 1) * adj * d_inv_sqrt.view(1, -1)
    indices = dense.nonzero().t()
    values = dense[indices[0], indices[1]]
    return torch.sparse_coo_tensor(indices, values, dense.shape).coalesce()


class GraphConv(nn.Module):
    def __init__(self, input_dim, output_dim, use_bias=False):
        super(GraphConv, self).__init__()
        self.kernel = nn.Parameter(torch.Tensor(input_dim, output_dim))
        nn.init.xavier_uniform_(self.kernel)
        self.bias = None
        if use_bias:
            self.bias = nn.Parameter(torch.Tensor(output_dim))
            nn.init.zeros_(self.bias)

    def forward(self, input_tensor, adj_mat):
        support = torch.mm(input_tensor, self.kernel)
        output = torch.sparse.mm(adj_mat, support)
        if self.bias is not None:
            output = output + self.bias
        return output


class GCN(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, use_bias=True, dropout_p=0.1):
        super(GCN, self).__init__()
        self.gc1 = GraphConv(input_dim, hidden_dim, use_bias=use_bias)
        self.gc2 = GraphConv(hidden_dim, output_dim, use_bias=use_bias)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input_tensor, adj_mat):
        x = self.gc1(input_tensor, adj_mat)
        x = F.relu(x)
        x = self.dropout(x)
        x = self.gc2(x, adj_mat)
        return F.log_softmax(x, dim=1)


class GraphAttentionLayer(nn.Module):
    def __init__(self, in_features, out_features, n_heads, concat=False, dropout=0.4,
                 leaky_relu_slope=0.2):
        super(GraphAttentionLayer, self).__init__()
        self.n_heads = n_heads
        self.concat = concat
        self.dropout = dropout
        if concat:
            self.out_features = out_features
            assert out_features % n_heads == 0
            self.n_hidden = out_features // n_heads
        else:
            self.n_hidden = out_features
        self.W = nn.Parameter(torch.empty(size=(in_features, self.n_hidden * n_heads)))
        self.a = nn.Parameter(torch.empty(size=(n_heads, 2 * self.n_hidden, 1)))
        self.leakyrelu = nn.LeakyReLU(leaky_relu_slope)
        self.softmax = nn.Softmax(dim=1)
        nn.init.xavier_normal_(self.W)
        nn.init.xavier_normal_(self.a)

    def _get_attention_scores(self, h_transformed):
        source_scores = torch.matmul(h_transformed, self.a[:, :self.n_hidden, :])
        target_scores = torch.matmul(h_transformed, self.a[:, self.n_hidden:, :])
        e = source_scores + target_scores.mT
        return self.leakyrelu(e)

    def forward(self, h, adj_mat):
        n_nodes = h.shape[0]
        h_transformed = torch.mm(h, self.W)
        h_transformed = F.dropout(h_transformed, self.dropout, training=self.training)
        h_transformed = h_transformed.view(n_nodes, self.n_heads, self.n_hidden).permute(1, 0, 2)
        e = self._get_attention_scores(h_transformed)
        connectivity_mask = -9e16 * torch.ones_like(e)
        e = torch.where(adj_mat > 0, e, connectivity_mask)
        attention = F.softmax(e, dim=-1)
        attention = F.dropout(attention, self.dropout, training=self.training)
        h_prime = torch.matmul(attention, h_transformed)
        if self.concat:
            h_prime = h_prime.permute(1, 0, 2).contiguous().view(n_nodes, self.out_features)
        else:
            h_prime = h_prime.mean(dim=0)
        return h_prime


class GAT(nn.Module):
    def __init__(self, in_features, n_hidden, n_heads, num_classes, concat=False, dropout=0.4,
                 leaky_relu_slope=0.2):
        super(GAT, self).__init__()
        self.gat1 = GraphAttentionLayer(in_features=in_features, out_features=n_hidden,
                                        n_heads=n_heads, concat=concat, dropout=dropout,
                                        leaky_relu_slope=leaky_relu_slope)
        self.gat2 = GraphAttentionLayer(in_features=n_hidden, out_features=num_classes,
                                        n_heads=1, concat=False, dropout=dropout,
                                        leaky_relu_slope=leaky_relu_slope)

    def forward(self, input_tensor, adj_mat):
        x = self.gat1(input_tensor, adj_mat)
        x = F.elu(x)
        x = self.gat2(x, adj_mat)
        return F.log_softmax(x, dim=1)


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    return correct.sum() / len(labels)


def run(name, model, features, adj, labels, idx_train, idx_val, idx_test, args):
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.l2)
    criterion = nn.NLLLoss()
    for epoch in range(args.epochs):
        model.train()
        optimizer.zero_grad()
        output = model(features, adj)
        loss = criterion(output[idx_train], labels[idx_train])
        loss.backward()
        optimizer.step()
        if epoch % 3 == 0:
            model.eval()
            with torch.no_grad():
                output = model(features, adj)
                val_loss = criterion(output[idx_val], labels[idx_val])
                val_acc = accuracy(output[idx_val], labels[idx_val])
            print(f'{name} Epoch: {epoch:03d} | Train loss: {loss.item():.4f} '
                  f'| Val loss: {val_loss.item():.4f} | Val acc: {val_acc:.3f}')
    model.eval()
    with torch.no_grad():
        output = model(features, adj)
        test_acc = accuracy(output[idx_test], labels[idx_test])
    print(f'{name} Test accuracy: {test_acc:.3f}', test_acc.dtype)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--epochs', type=int, default=10)
    parser.add_argument('--lr', type=float, default=0.01)
    parser.add_argument('--l2', type=float, default=5e-4)
    parser.add_argument('--hidden-dim', type=int, default=16)
    parser.add_argument('--seed', type=int, default=42)
    args = parser.parse_args()
    torch.manual_seed(args.seed)

    adj, features, labels = make_graph()
    adj_norm = normalize_adjacency(adj)
    print(adj_norm.layout, adj_norm.is_coalesced(), adj_norm._nnz(), tuple(adj_norm.shape))
    print(f'{adj_norm.to_dense().sum().item():.4f}', int(adj.sum()), torch.bincount(labels))
    perm = torch.randperm(len(labels))
    idx_train, idx_val, idx_test = perm[:20], perm[20:30], perm[30:]

    gcn = GCN(features.shape[1], args.hidden_dim, 3)
    print(gcn)
    run('GCN', gcn, features, adj_norm, labels, idx_train, idx_val, idx_test, args)

    gat = GAT(features.shape[1], 8, 2, 3, concat=True, dropout=0.3)
    print(gat, [tuple(p.shape) for p in gat.parameters()])
    run('GAT', gat, features, adj + torch.eye(adj.size(0)), labels, idx_train, idx_val,
        idx_test, args)


if __name__ == '__main__':
    main()
